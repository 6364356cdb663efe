// From a metric's proposal to the replicas the HPA sets, after upstream's horizontal.go:
// recommendations are stabilised over a window (scale down to the highest recommendation of
// the last 300 s by default; with `behavior`, its scaleUp and scaleDown windows) and the
// change is limited — without `behavior` to max(2×current, 4) up, with it by its Pods/Percent
// policies over their periods, counting the scale events of each period (selectPolicy Max,
// Min or Disabled). Both keep per-HPA history in memory, as upstream does; the clock is injected.
import { defaultScaleDown, defaultScaleUp } from '../../api/autoscaling/hpa-defaults.js';

export interface ScalingPolicy { type: 'Pods' | 'Percent' | string; value: number; periodSeconds: number }
export interface ScalingRules { stabilizationWindowSeconds?: number; selectPolicy?: string; policies?: ScalingPolicy[] }
export interface Behavior { scaleUp?: ScalingRules; scaleDown?: ScalingRules }

export interface Limited {
  replicas: number;
  /** AbleToScale's reason and message for the stabilisation step. */
  ableReason: string;
  ableMessage: string;
  /** ScalingLimited: whether the limits changed the stabilised count, and why. */
  limited: boolean;
  limitReason: string;
  limitMessage: string;
}

interface Recommendation { at: number; replicas: number }
interface ScaleEvent { at: number; change: number; outdated: boolean }

export const DOWNSCALE_STABILIZATION_MS = 300_000;
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

export class ScalingHistory {
  private recommendations = new Map<string, Recommendation[]>();
  private upEvents = new Map<string, ScaleEvent[]>();
  private downEvents = new Map<string, ScaleEvent[]>();

  constructor(private now: () => number, private downscaleStabilizationMs = DOWNSCALE_STABILIZATION_MS) {}

  forget(key: string): void {
    this.recommendations.delete(key);
    this.upEvents.delete(key);
    this.downEvents.delete(key);
  }

  private record(key: string, replicas: number, isOld: (r: Recommendation) => boolean): void {
    const list = this.recommendations.get(key) ?? [];
    const old = list.findIndex(isOld);
    const rec = { at: this.now(), replicas };
    if (old >= 0) list[old] = rec;
    else list.push(rec);
    this.recommendations.set(key, list);
  }

  /** normalizeDesiredReplicas: no `behavior` on the HPA. */
  normalize(key: string, current: number, desired: number, min: number, max: number): Limited {
    const cutoff = this.now() - this.downscaleStabilizationMs;
    let stabilized = desired;
    for (const r of this.recommendations.get(key) ?? []) if (r.at >= cutoff && r.replicas > stabilized) stabilized = r.replicas;
    this.record(key, desired, (r) => r.at < cutoff);
    const able = stabilized !== desired
      ? { ableReason: 'ScaleDownStabilized', ableMessage: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
      : { ableReason: 'ReadyForNewScale', ableMessage: 'recommended size matches current size' };
    const upLimit = Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM);
    let out: { replicas: number; limitReason: string; limitMessage: string };
    if (stabilized < min) out = { replicas: min, limitReason: 'TooFewReplicas', limitMessage: 'the desired replica count is less than the minimum replica count' };
    else if (stabilized > Math.min(max, upLimit)) {
      out = max > upLimit
        ? { replicas: upLimit, limitReason: 'ScaleUpLimit', limitMessage: 'the desired replica count is increasing faster than the maximum scale rate' }
        : { replicas: max, limitReason: 'TooManyReplicas', limitMessage: 'the desired replica count is more than the maximum replica count' };
    } else out = { replicas: stabilized, limitReason: 'DesiredWithinRange', limitMessage: 'the desired count is within the acceptable range' };
    return { ...able, ...out, limited: out.replicas !== stabilized };
  }

  /** normalizeDesiredReplicasWithBehaviors. */
  normalizeWithBehavior(key: string, behavior: Behavior, current: number, desired: number, min: number, max: number): Limited {
    const up = { ...defaultScaleUp(), ...stripNull(behavior.scaleUp) } as Required<ScalingRules>;
    const down = { ...defaultScaleDown(), ...stripNull(behavior.scaleDown) } as Required<ScalingRules>;
    const now = this.now();
    const upCutoff = now - up.stabilizationWindowSeconds * 1000, downCutoff = now - down.stabilizationWindowSeconds * 1000;
    let upRec = desired, downRec = desired;
    for (const r of this.recommendations.get(key) ?? []) {
      if (r.at > upCutoff) upRec = Math.min(r.replicas, upRec);
      if (r.at > downCutoff) downRec = Math.max(r.replicas, downRec);
    }
    let stabilized = current;
    if (stabilized < upRec) stabilized = upRec;
    if (stabilized > downRec) stabilized = downRec;
    this.record(key, desired, (r) => r.at < upCutoff && r.at < downCutoff);
    const able = stabilized === desired
      ? { ableReason: 'ReadyForNewScale', ableMessage: 'recommended size matches current size' }
      : desired >= current
        ? { ableReason: 'ScaleUpStabilized', ableMessage: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
        : { ableReason: 'ScaleDownStabilized', ableMessage: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
    const out = this.rate(key, up, down, current, stabilized, min, max);
    return { ...able, ...out, limited: out.replicas !== stabilized };
  }

  /** convertDesiredReplicasWithBehaviorRate. */
  private rate(key: string, up: Required<ScalingRules>, down: Required<ScalingRules>, current: number, desired: number, min: number, max: number) {
    const ups = this.upEvents.get(key) ?? [], downs = this.downEvents.get(key) ?? [];
    if (desired > current) {
      const limit = Math.max(current, this.limitFor(up, current, ups, downs, 'up'));
      const [allowed, limitReason, limitMessage] = max > limit
        ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
        : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
      if (desired > allowed) return { replicas: allowed, limitReason, limitMessage };
    } else if (desired < current) {
      const limit = Math.min(current, this.limitFor(down, current, ups, downs, 'down'));
      const [allowed, limitReason, limitMessage] = min < limit
        ? [limit, 'ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate']
        : [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
      if (desired < allowed) return { replicas: allowed, limitReason, limitMessage };
    }
    return { replicas: desired, limitReason: 'DesiredWithinRange', limitMessage: 'the desired count is within the acceptable range' };
  }

  private limitFor(rules: Required<ScalingRules>, current: number, ups: ScaleEvent[], downs: ScaleEvent[], dir: 'up' | 'down'): number {
    if (rules.selectPolicy === 'Disabled') return current;
    // Max picks the policy allowing the biggest change; Min the smallest.
    const biggest = rules.selectPolicy !== 'Min';
    const pick = dir === 'up' ? (biggest ? Math.max : Math.min) : (biggest ? Math.min : Math.max);
    let result = dir === 'up' ? (biggest ? -Infinity : Infinity) : (biggest ? Infinity : -Infinity);
    for (const p of rules.policies) {
      const start = current - this.changeIn(p.periodSeconds, ups) + this.changeIn(p.periodSeconds, downs);
      const proposed = dir === 'up'
        ? (p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100)))
        : (p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100)));
      result = pick(result, proposed);
    }
    return result;
  }

  private changeIn(periodSeconds: number, events: ScaleEvent[]): number {
    const from = this.now() - periodSeconds * 1000;
    return events.filter((e) => e.at > from).reduce((s, e) => s + e.change, 0);
  }

  /** storeScaleEvent: a rescale from `prev` to `next`, counted by the policies of its direction. */
  recordScale(key: string, behavior: Behavior | undefined, prev: number, next: number): void {
    if (!behavior || next === prev) return;
    const up = next > prev;
    const rules = up ? { ...defaultScaleUp(), ...stripNull(behavior.scaleUp) } : { ...defaultScaleDown(), ...stripNull(behavior.scaleDown) };
    const longest = Math.max(0, ...((rules.policies ?? []) as ScalingPolicy[]).map((p) => p.periodSeconds));
    const map = up ? this.upEvents : this.downEvents;
    const list = map.get(key) ?? [];
    const cutoff = this.now() - longest * 1000;
    for (const e of list) if (e.at <= cutoff) e.outdated = true;
    const event = { at: this.now(), change: Math.abs(next - prev), outdated: false };
    const old = list.findIndex((e) => e.outdated);
    if (old >= 0) list[old] = event;
    else list.push(event);
    map.set(key, list);
  }
}

function stripNull(r: ScalingRules | undefined): ScalingRules {
  return Object.fromEntries(Object.entries(r ?? {}).filter(([, v]) => v != null && !(Array.isArray(v) && !v.length)));
}
