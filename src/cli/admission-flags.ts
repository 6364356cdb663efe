// `--enable-admission-plugins` / `--disable-admission-plugins`, shared by `capstan apiserver`
// and `capstan up`: names kube-apiserver does not know stop the command before anything starts.
import { admissionFlagErrors, ORDERED_PLUGINS, pluginList, type AdmissionFlags } from '../apiserver/admission/plugins.js';

export const admissionFlagSpecs = {
  'enable-admission-plugins': { type: 'string', default: '' },
  'disable-admission-plugins': { type: 'string', default: '' },
} as const;

export function admissionFlags(command: string, values: { 'enable-admission-plugins': string; 'disable-admission-plugins': string }): AdmissionFlags {
  const flags = { enable: pluginList(values['enable-admission-plugins']), disable: pluginList(values['disable-admission-plugins']) };
  // Whether a known plugin is built is the API server's check; the names are checked here.
  const errs = admissionFlagErrors(flags, new Set(ORDERED_PLUGINS)).filter((e) => e.endsWith('is unknown'));
  if (errs.length) throw new Error(`${command}: ${errs.join(', ')}`);
  return flags;
}
