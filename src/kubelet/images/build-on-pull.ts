// A CRI client for a node's kubelet whose PullImage of one of capstan's built-in images
// builds the image here and imports it, instead of asking a registry (no registry has them).
// The node image (localhost/capstan/node:1, ≈90 MB: a strip of the node binary and a pack)
// is built this way only once a pod names it, so a node whose pods never run it, such as
// every lab node of a networking test, does not pay for it at start.
import { CRIClient, type CRIClientOptions } from '../../../cri/index.js';
import type * as T from '../../../cri/index.js';
import { ensureBuiltinImages } from './import.js';

export class BuildOnPullCRIClient extends CRIClient {
  /** One build per image at a time: pods naming it together wait for the same import. */
  private readonly building = new Map<string, Promise<string>>();

  constructor(opts: CRIClientOptions, private readonly builtOnPull: readonly string[]) {
    super(opts);
  }

  override async pullImage(image: string, auth?: T.AuthConfig, sandboxConfig?: T.PodSandboxConfig): Promise<string> {
    if (!this.builtOnPull.includes(image)) return super.pullImage(image, auth, sandboxConfig);
    let build = this.building.get(image);
    if (!build) {
      const socket = this.address.replace(/^unix:\/\//, '');
      build = ensureBuiltinImages(socket, [image], { client: this }).then(([r]) => r!.id).finally(() => this.building.delete(image));
      this.building.set(image, build);
    }
    return build;
  }
}
