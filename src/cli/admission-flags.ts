// `--enable-admission-plugins` / `--disable-admission-plugins`, shared by `capstan apiserver`
// and `capstan up`, with DefaultTolerationSeconds' two flags: names kube-apiserver does not
// know stop the command before anything starts.
import { admissionFlagErrors, ORDERED_PLUGINS, pluginList, type AdmissionFlags } from '../apiserver/admission/plugins.js';
import type { TolerationSeconds } from '../apiserver/admission/default-toleration-seconds.js';

export const admissionFlagSpecs = {
  'enable-admission-plugins': { type: 'string', default: '' },
  'disable-admission-plugins': { type: 'string', default: '' },
  'default-not-ready-toleration-seconds': { type: 'string', default: '300' },
  'default-unreachable-toleration-seconds': { type: 'string', default: '300' },
} as const;

type AdmissionFlagValues = { [K in keyof typeof admissionFlagSpecs]: string };

export function admissionFlags(command: string, values: AdmissionFlagValues): AdmissionFlags & { tolerationSeconds: TolerationSeconds } {
  const flags = { enable: pluginList(values['enable-admission-plugins']), disable: pluginList(values['disable-admission-plugins']) };
  // Whether a known plugin is built is the API server's check; the names are checked here.
  const errs = admissionFlagErrors(flags, new Set(ORDERED_PLUGINS)).filter((e) => e.endsWith('is unknown'));
  const seconds = (flag: 'default-not-ready-toleration-seconds' | 'default-unreachable-toleration-seconds'): number => {
    const n = Number(values[flag]);
    if (!/^\d+$/.test(values[flag]) || !Number.isSafeInteger(n)) errs.push(`--${flag}: ${JSON.stringify(values[flag])} is not a number of seconds`);
    return n;
  };
  const tolerationSeconds = { notReady: seconds('default-not-ready-toleration-seconds'), unreachable: seconds('default-unreachable-toleration-seconds') };
  if (errs.length) throw new Error(`${command}: ${errs.join(', ')}`);
  return { ...flags, tolerationSeconds };
}
