import { DomainError } from '../../core/common/errors';
import type { WireValue } from './form-body';

const invalid = (message: string) => new DomainError('validation_failed', message);

const isObject = (v: WireValue | undefined): v is { [key: string]: WireValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * docs/api.md#nameservers-field, the one reader of nameservers for every route: keyed
 * (`nameservers[ns1]`) or positional (`nameservers[0]`, a JSON list), never both at once. Empty
 * entries are dropped (billing platforms send unset ones as empty strings); what the list must
 * hold is the core's rule (`normaliseNameservers`).
 */
export function nameserversFromWire(value: WireValue | undefined): string[] {
  if (value === undefined || value === '') return [];
  let ordered: Array<readonly [string, WireValue]>;
  if (Array.isArray(value)) {
    ordered = value.map((v, i) => [`ns${i + 1}`, v] as const);
  } else if (isObject(value)) {
    const keys = Object.keys(value);
    const isKeyed = keys.some((key) => /^ns\d$/i.test(key));
    const slots = Object.entries(value).map(([key, v]) => {
      const keyed = /^ns([1-5])$/i.exec(key);
      const positional = isKeyed ? null : /^[0-4]$/.exec(key);
      if (!keyed && !positional)
        throw invalid(`nameservers: "${key.slice(0, 20)}" is not a nameserver key; use ns1 to ns5`);
      return [keyed ? Number(keyed[1]) - 1 : Number(key), key, v] as const;
    });
    ordered = slots.sort(([a], [b]) => a - b).map(([, key, v]) => [key, v] as const);
  } else {
    throw invalid(
      'nameservers must be sent as nameservers[ns1], nameservers[ns2], … (or nameservers[0], nameservers[1], …)',
    );
  }
  if (ordered.length > 5) throw invalid('nameservers: at most 5 (ns1 to ns5)');
  return ordered
    .map(([key, ns]) => {
      // Named as sent (nameservers[ns4], nameservers[3]), not by its place among the ones given.
      if (typeof ns !== 'string') throw invalid(`nameservers: ${key} must be a single host name`);
      return ns.trim();
    })
    .filter((ns) => ns !== '');
}

/** The same nameservers sent as top-level fields `ns1` … `ns5` (the nameserver save route allows both). */
export function topLevelNameservers(params: { readonly [key: string]: WireValue | undefined }): WireValue | undefined {
  const given = Object.fromEntries(
    [1, 2, 3, 4, 5].flatMap((i) => (params[`ns${i}`] === undefined ? [] : [[`ns${i}`, params[`ns${i}`]!]])),
  );
  return Object.keys(given).length === 0 ? undefined : given;
}
