import { ConfigurationError } from '../core/errors/errors.ts';

/** Parses an IPv4 or IPv6 address to 16 bytes (IPv4 as IPv4-mapped IPv6); undefined if it is neither. */
function parseAddress(address: string): Uint8Array | undefined {
  const bytes = new Uint8Array(16);
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    bytes.set([0xff, 0xff, ...parts], 10);
    return bytes;
  }
  let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // A dotted IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  for (const [i, group] of groups.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  }
  return bytes;
}

/** A CIDR as an address and a prefix length over 128 bits (IPv4 as IPv4-mapped); undefined if malformed. */
function parseCidr(cidr: string): { base: Uint8Array; bits: number } | undefined {
  const [network = '', prefix, extra] = cidr.split('/');
  const base = parseAddress(network);
  if (!base || extra !== undefined) return undefined;
  const isV4 = !network.includes(':');
  if (prefix === undefined) return { base, bits: 128 };
  // Digits only: Number() would read '', ' ', '-0', '0x8' and '8e0' as numbers, '' and ' ' as 0 (every address).
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (isV4 ? 32 : 128)) return undefined;
  return { base, bits: Number(prefix) + (isV4 ? 96 : 0) };
}

/**
 * Refuses a malformed allowed-CIDR entry up front, naming it: a typo must not match nothing, or
 * everything (`10.0.0.0/` read as /0).
 *
 * @group Webhooks
 */
export function checkCidrs(cidrs: readonly string[] | undefined, option: string): void {
  for (const [i, cidr] of (cidrs ?? []).entries()) {
    if (typeof cidr !== 'string' || !parseCidr(cidr)) {
      throw new ConfigurationError(
        `${option}[${i}] is not a CIDR (got ${JSON.stringify(cidr)}): write an address with an optional prefix length, such as 10.0.0.0/8, 203.0.113.7 or 2001:db8::/32.`,
      );
    }
  }
}

/**
 * Whether `address` lies in `cidr` (`10.0.0.0/8`, `2001:db8::/32`, or a bare address). A malformed
 * CIDR matches nothing.
 *
 * @group Webhooks
 */
export function inCidr(address: string, cidr: string): boolean {
  const target = parseAddress(address);
  const parsed = parseCidr(cidr);
  if (!target || !parsed) return false;
  const { base, bits } = parsed;
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if (((target[bit / 8] ?? 0) & mask) !== ((base[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}
