// Request bodies captured from kubectl v1.32.4 (`-v=8` hex dumps), decoded to what the same
// command would have sent as JSON, minus the `creationTimestamp: null` that JSON carries.
import t from 'tap';
import { decodeKubernetesProtobuf } from '../../src/apiserver/protobuf/index.js';

const cases: { cmd: string; hex: string; want: Record<string, unknown> }[] = [
  {
    cmd: 'create namespace capns',
    hex: '6b3873000a0f0a02763112094e616d657370616365121d0a150a056361706e7312001a0022002a0032003800420012001a020a001a002200',
    want: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capns' }, spec: {}, status: {} },
  },
  {
    cmd: 'create configmap cm1 --from-literal=a=1 --from-literal=b=two',
    hex: '6b3873000a0f0a0276311209436f6e6669674d617012270a130a03636d3112001a0022002a0032003800420012060a016112013112080a0162120374776f1a002200',
    want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: '1', b: 'two' } },
  },
  {
    cmd: 'create secret generic s1 --from-literal=user=admin --from-literal=pw=',
    hex: '6b3873000a0c0a0276311206536563726574122d0a120a02733112001a0022002a0032003800420012060a0270771200120d0a0475736572120561646d696e1a001a002200',
    want: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { pw: '', user: 'YWRtaW4=' } },
  },
  {
    cmd: 'create deployment web3 --image=nginx --replicas=0 --port=80',
    hex: '6b3873000a150a07617070732f7631120a4465706c6f796d656e7412bc010a210a047765623312001a0022002a003200380042005a0b0a036170701204776562331288010800120d0a0b0a036170701204776562331a6d0a1d0a0012001a0022002a003200380042005a0b0a03617070120477656233124c122e0a056e67696e7812056e67696e782a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200',
    want: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web3', labels: { app: 'web3' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web3' } },
        template: {
          metadata: { labels: { app: 'web3' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    },
  },
  {
    cmd: 'create service clusterip svc1 --tcp=80:8080',
    hex: '6b3873000a0d0a027631120753657276696365126c0a210a047376633112001a0022002a003200380042005a0b0a0361707012047376633112430a1b0a0738302d38303830120354435018502207080010903f1a002800120b0a036170701204737663311a002209436c757374657249503a00420052005a00600068001a020a001a002200',
    want: {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc1', labels: { app: 'svc1' } },
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'svc1' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    },
  },
  {
    cmd: 'create service nodeport np1 --tcp=81:8081 --node-port=30081',
    hex: '6b3873000a0d0a027631120753657276696365126a0a1f0a036e703112001a0022002a003200380042005a0a0a0361707012036e703112430a1d0a0738312d38303831120354435018512207080010913f1a002881eb01120a0a0361707012036e70311a0022084e6f6465506f72743a00420052005a00600068001a020a001a002200',
    want: {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'np1', labels: { app: 'np1' } },
      spec: { ports: [{ name: '81-8081', protocol: 'TCP', port: 81, targetPort: 8081, nodePort: 30081 }], selector: { app: 'np1' }, type: 'NodePort' },
      status: { loadBalancer: {} },
    },
  },
  {
    cmd: 'create service externalname en1 --external-name=example.com',
    hex: '6b3873000a0d0a027631120753657276696365125a0a1f0a03656e3112001a0022002a003200380042005a0a0a036170701203656e311233120a0a036170701203656e311a00220c45787465726e616c4e616d653a004200520b6578616d706c652e636f6d5a00600068001a020a001a002200',
    want: {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'en1', labels: { app: 'en1' } },
      spec: { selector: { app: 'en1' }, type: 'ExternalName', externalName: 'example.com' },
      status: { loadBalancer: {} },
    },
  },
  {
    cmd: 'create serviceaccount sa1',
    hex: '6b3873000a140a027631120e536572766963654163636f756e7412150a130a0373613112001a0022002a003200380042001a002200',
    want: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } },
  },
  {
    cmd: 'create token sa1 --duration=10m --audience=a1',
    hex: '6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e5265717565737412210a100a0012001a0022002a0032003800420012070a02613120d8041a040a0012001a002200',
    want: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { audiences: ['a1'], expirationSeconds: 600 }, status: {} },
  },
  {
    cmd: 'auth can-i create pods',
    hex: '6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577123f0a100a0012001a0022002a0032003800420012210a1f0a0764656661756c7412066372656174651a0022002a04706f647332003a001a08080012001a0020001a002200',
    want: {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: {},
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
      status: { allowed: false },
    },
  },
  {
    cmd: 'create priorityclass pc0 --value=0 --description=zero',
    hex: '6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312350a130a0370633012001a0022002a003200380042001000180022047a65726f2a14507265656d70744c6f7765725072696f726974791a002200',
    want: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'pc0' }, value: 0, description: 'zero', preemptionPolicy: 'PreemptLowerPriority' },
  },
  {
    cmd: 'create quota q1 --hard=pods=2,cpu=1',
    hex: '6b3873000a130a027631120d5265736f7572636551756f746112310a120a02713112001a0022002a0032003800420012190a0a0a0363707512030a01310a0b0a04706f647312030a01321a001a002200',
    want: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q1' }, spec: { hard: { cpu: '1', pods: '2' } }, status: {} },
  },
  {
    cmd: 'create role r1 --verb=get --resource=pods',
    hex: '6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512230a120a02723112001a0022002a00320038004200120d0a0367657412001a04706f64731a002200',
    want: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r1' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
  },
  {
    cmd: 'create clusterrolebinding crb1 --clusterrole=view --user=bob',
    hex: '6b3873000a320a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311212436c7573746572526f6c6542696e64696e6712700a140a046372623112001a0022002a0032003800420012280a04557365721219726261632e617574686f72697a6174696f6e2e6b38732e696f1a03626f6222001a2e0a19726261632e617574686f72697a6174696f6e2e6b38732e696f120b436c7573746572526f6c651a04766965771a002200',
    want: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'crb1' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    },
  },
  {
    cmd: "create job j1 --image=busybox -- sh -c 'echo hi'",
    hex: '6b3873000a0f0a0862617463682f763112034a6f62128b010a120a026a3112001a0022002a00320038004200126b32690a100a0012001a0022002a00320038004200125512320a026a31120762757379626f781a0273681a022d631a076563686f2068692a0042006a007200800100880100900100a201001a054e65766572320042004a0052005800600068008201008a01009a0100c201001a082000280030003a001a002200',
    want: {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j1' },
      spec: { template: { metadata: {}, spec: { containers: [{ name: 'j1', image: 'busybox', command: ['sh', '-c', 'echo hi'], resources: {} }], restartPolicy: 'Never' } } },
      status: {},
    },
  },
  {
    cmd: "create cronjob cj --image=busybox --schedule='*/5 * * * *'",
    hex: '6b3873000a130a0862617463682f7631120743726f6e4a6f62129e010a120a02636a12001a0022002a003200380042001285010a0b2a2f35202a202a202a202a1a002a740a120a02636a12001a0022002a00320038004200125e325c0a100a0012001a0022002a00320038004200124812210a02636a120762757379626f782a0042006a007200800100880100900100a201001a094f6e4661696c757265320042004a0052005800600068008201008a01009a0100c201001a001a002200',
    want: {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { metadata: { name: 'cj' }, spec: { template: { metadata: {}, spec: { containers: [{ name: 'cj', image: 'busybox', resources: {} }], restartPolicy: 'OnFailure' } } } },
      },
      status: {},
    },
  },
  {
    cmd: "create ingress ing --class=nginx --rule='foo.com/bar*=svc1:80,tls=foo-tls' --default-backend=def:http",
    hex: '6b3873000a1f0a146e6574776f726b696e672e6b38732e696f2f76311207496e677265737312780a130a03696e6712001a0022002a00320038004200125d0a11220f0a0364656612080a0468747470100012120a07666f6f2e636f6d1207666f6f2d746c731a2d0a07666f6f2e636f6d12220a200a1e0a042f626172120e220c0a047376633112040a0010501a0650726566697822056e67696e781a020a001a002200',
    want: {
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'ing' },
      spec: {
        defaultBackend: { service: { name: 'def', port: { name: 'http' } } },
        tls: [{ hosts: ['foo.com'], secretName: 'foo-tls' }],
        rules: [{ host: 'foo.com', http: { paths: [{ path: '/bar', backend: { service: { name: 'svc1', port: { number: 80 } } }, pathType: 'Prefix' }] } }],
        ingressClassName: 'nginx',
      },
      status: { loadBalancer: {} },
    },
  },
  {
    cmd: 'create pdb pdb1 --selector=app=x --max-unavailable=0',
    hex: '6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412380a140a047064623112001a0022002a003200380042001214120a0a080a036170701201781a06080010001a001a0a080018002000280030001a002200',
    want: {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb1' },
      spec: { selector: { matchLabels: { app: 'x' } }, maxUnavailable: 0 },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    },
  },
  {
    cmd: 'create token sa1 --bound-object-kind=Pod --bound-object-name=p1 --bound-object-uid=123',
    hex: '6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e52657175657374122e0a100a0012001a0022002a0032003800420012141a120a03506f64120276311a02703122033132331a040a0012001a002200',
    want: {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {},
      spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: '123' } }, status: {},
    },
  },
  {
    cmd: 'auth whoami',
    hex: '6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a100a0012001a0022002a0032003800420012060a040a0012001a002200',
    want: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: {} } },
  },
  {
    cmd: 'auth can-i --list',
    hex: '6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c657352657669657712230a100a0012001a0022002a0032003800420012090a0764656661756c741a04180022001a002200',
    want: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'default' } },
  },
  {
    cmd: 'create clusterrole agg --aggregation-rule=rbac.example.com/aggregate-to-x=true',
    hex: '6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c6512420a130a0361676712001a0022002a003200380042001a2b0a290a270a1f726261632e6578616d706c652e636f6d2f6167677265676174652d746f2d781204747275651a002200',
    want: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-x': 'true' } }] } },
  },
  {
    cmd: "create clusterrole nr --verb=get --non-resource-url='/logs/*' --resource=nodes,deployments.apps --resource-name=a",
    hex: '6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c6512540a120a026e7212001a0022002a0032003800420012110a0367657412001a056e6f646573220161121b0a036765741204617070731a0b6465706c6f796d656e7473220161120e0a036765742a072f6c6f67732f2a1a002200',
    want: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'nr' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'], resourceNames: ['a'] }, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a'] }, { verbs: ['get'], nonResourceURLs: ['/logs/*'] }] },
  },
  {
    cmd: 'create rolebinding rb --role=r1 --serviceaccount=default:sa1 --group=devs',
    hex: '6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b526f6c6542696e64696e671289010a120a02726212001a0022002a00320038004200122a0a0547726f75701219726261632e617574686f72697a6174696f6e2e6b38732e696f1a0464657673220012200a0e536572766963654163636f756e7412001a03736131220764656661756c741a250a19726261632e617574686f72697a6174696f6e2e6b38732e696f1204526f6c651a0272311a002200',
    want: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa1', namespace: 'default' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' } },
  },
  {
    cmd: 'create quota q2 --hard=requests.cpu=500m --scopes=BestEffort',
    hex: '6b3873000a130a027631120d5265736f7572636551756f7461123c0a120a02713212001a0022002a0032003800420012240a160a0c72657175657374732e63707512060a043530306d120a426573744566666f72741a001a002200',
    want: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q2' }, spec: { hard: { 'requests.cpu': '500m' }, scopes: ['BestEffort'] }, status: {} },
  },
  {
    cmd: 'create priorityclass hi --value=1000 --global-default=true --preemption-policy=Never',
    hex: '6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312220a120a02686912001a0022002a0032003800420010e807180122002a054e657665721a002200',
    want: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'hi' }, value: 1000, globalDefault: true, preemptionPolicy: 'Never' },
  },
];

for (const c of cases) {
  t.test(`kubectl ${c.cmd}`, async (t) => {
    const decoded = decodeKubernetesProtobuf(Buffer.from(c.hex, 'hex'));
    t.equal(decoded.apiVersion, c.want.apiVersion);
    t.equal(decoded.kind, c.want.kind);
    t.strictSame(decoded.object, c.want);
  });
}
