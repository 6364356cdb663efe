// The Priority admission plugin (upstream plugin/pkg/admission/priority): a new pod's
// priorityClassName becomes spec.priority and spec.preemptionPolicy from its PriorityClass
// (the globalDefault one, or 0, when it names none); a pod may not name a class that does
// not exist nor set a priority of its own. PriorityClasses: at most one globalDefault.
import type { KubeObject } from '../../api/object.js';
import { admissionForbidden, isPodWrite, type AdmissionAttributes, type AdmissionPlugin } from '../admission.js';
import { StatusError } from '../errors.js';
import type { GenericRegistry, ListSource } from '../registry/index.js';
import type { Store } from '../../storage/store.js';

/** Upstream's scheduling.DefaultPriorityWhenNoDefaultClassExists. */
const NO_DEFAULT_PRIORITY = 0;

/** `source`: where the classes are read from (the watch cache once it has caught up with
 *  storage, as upstream's plugin reads its informer); every pod create asks. */
export function priority(classes: GenericRegistry, source?: ListSource & Pick<Store, 'get'>): AdmissionPlugin {
  /** The globalDefault class with the highest value, as upstream's getDefaultPriorityClass. */
  async function defaultClass(): Promise<KubeObject | undefined> {
    const { items } = await classes.list({ source });
    return items.filter((c) => c.globalDefault === true).sort((x, y) => (y.value ?? 0) - (x.value ?? 0))[0];
  }

  async function admitPod(a: AdmissionAttributes): Promise<void> {
    const spec = a.object!.spec ??= {};
    let value = NO_DEFAULT_PRIORITY;
    let policy = 'PreemptLowerPriority';
    if (!spec.priorityClassName) {
      const def = await defaultClass();
      if (def) {
        spec.priorityClassName = def.metadata.name;
        value = def.value;
        policy = def.preemptionPolicy ?? policy;
      }
    } else {
      let pc: KubeObject;
      try {
        pc = await classes.get(undefined, spec.priorityClassName, source);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) throw admissionForbidden(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
        throw e;
      }
      value = pc.value;
      policy = pc.preemptionPolicy ?? policy;
    }
    if (spec.priority != null && spec.priority !== value) {
      throw admissionForbidden(a, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`);
    }
    spec.priority = value;
    if (spec.preemptionPolicy != null && spec.preemptionPolicy !== policy) {
      throw admissionForbidden(a, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = policy;
  }

  async function validateClass(a: AdmissionAttributes): Promise<void> {
    const pc = a.object;
    if (!pc || pc.globalDefault !== true || a.info.subresource) return;
    const def = await defaultClass();
    if (def && def.metadata.name !== pc.metadata.name) {
      throw admissionForbidden(a, `PriorityClass ${def.metadata.name} is already marked as default. Only one default can exist`);
    }
  }

  return {
    name: 'Priority',
    async mutate(a) {
      if (isPodWrite(a)) await admitPod(a);
    },
    async validate(a) {
      if (a.info.group === 'scheduling.k8s.io' && a.info.resource === 'priorityclasses' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) await validateClass(a);
    },
  };
}
