// Server-side apply through Debian's python3-kubernetes client (22.6), the way a Python user
// sends a YAML manifest: its typed patch methods cannot choose application/apply-patch+yaml,
// so the ApiClient's own call_api sends the YAML text as written (its REST layer passes a
// string body through untouched), with the kubeconfig's credentials and TLS.
import { spawn } from 'node:child_process';

export const PYTHON = '/usr/bin/python3';

const program = `
import json, sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException
kubeconfig, name = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
api = client.ApiClient()
try:
    r = api.call_api('/api/v1/namespaces/{namespace}/configmaps/{name}', 'PATCH',
        path_params={'namespace': 'default', 'name': name}, query_params=[('fieldManager', 'python')],
        header_params={'Content-Type': 'application/apply-patch+yaml', 'Accept': 'application/json'},
        body=sys.stdin.read(), auth_settings=['BearerToken'], _preload_content=False, _return_http_data_only=True)
    print(json.dumps({'status': r.status, 'body': json.loads(r.data)}))
except ApiException as e:
    print(json.dumps({'status': e.status, 'body': json.loads(e.body) if e.body else None}))
`;

export interface PythonApplyResult {
  status: number;
  body: any;
}

/** Applies the YAML `manifest` as ConfigMap `name` in `default`; resolves with the HTTP status and body. */
export function pythonApplyConfigMap(kubeconfig: string, name: string, manifest: string): Promise<PythonApplyResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-c', program, kubeconfig, name], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`python apply exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as PythonApplyResult);
    });
    child.stdin.end(manifest);
  });
}
