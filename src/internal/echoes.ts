/**
 * The forms in which a secret sent to a server may come back in its answer, so that each can be
 * taken out of what is kept, logged or shown.
 *
 * @module
 */

// Hex digits matched in either case: servers write escapes as `%2F` or `%2f`, `\u002B` or `\u002b`.
const anyCase = (hex: string) => hex.replace(/[a-f]/gi, (d) => `[${d.toLowerCase()}${d.toUpperCase()}]`);
const escaped = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** What one character of a secret may be written as in an answer. */
function charForms(c: string): string {
  const code = c.codePointAt(0) as number;
  const forms = [escaped(c)];
  // URL- and form-encoded: each UTF-8 byte as %XX; a space as + too.
  const bytes = [...new TextEncoder().encode(c)];
  forms.push(bytes.map((b) => `%${anyCase(b.toString(16).padStart(2, '0'))}`).join(''));
  if (c === ' ') forms.push('\\+');
  // Inside a JSON string: escaped as JSON needs (`\"`, `\n`), `/` as `\/` (PHP), and any
  // character as `\uXXXX` (.NET writes `+` so, Go `<>&`; a character past U+FFFF as its pair). A
  // backslash's `\\` is left to the whole secret's JSON form (see echoPattern): as a choice of each
  // character, a run of them could be split 2^n ways.
  const json = JSON.stringify(c).slice(1, -1);
  if (json !== c && c !== '\\') forms.push(escaped(json));
  if (c === '/') forms.push('\\\\/');
  const units = code > 0xffff ? [c.charCodeAt(0), c.charCodeAt(1)] : [code];
  forms.push(units.map((u) => `\\\\u${anyCase(u.toString(16).padStart(4, '0'))}`).join(''));
  return `(?:${forms.join('|')})`;
}

/**
 * A pattern that finds `secret` as sent and as a server may echo it: each of its characters as it
 * is, URL- or form-encoded, or escaped inside a JSON string (as JavaScript, PHP, .NET or Go write
 * it), in any mix and hex case. Undefined for an empty secret.
 */
export function echoPattern(secret: string): RegExp | undefined {
  if (!secret) return undefined;
  let pattern = compiled.get(secret);
  if (!pattern) {
    const json = JSON.stringify(secret).slice(1, -1);
    const whole = json.includes('\\\\') ? `${escaped(json)}|${escaped(json.replaceAll('/', '\\/'))}|` : '';
    pattern = new RegExp(`${whole}${[...secret].map(charForms).join('')}`, 'g');
    // Few secrets, seen again and again (a client's tokens, a listener's key): each compiled once.
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(secret, pattern);
  }
  return pattern;
}

const MAX_COMPILED = 64;
const compiled = new Map<string, RegExp>();

/** `text` with every form of each of `secrets` ({@link echoPattern}) replaced by `mark`, longest secret first. */
export function withoutEchoes(text: string, secrets: readonly string[], mark: string): string {
  let out = text;
  for (const secret of secrets.length > 1
    ? [...new Set(secrets)].sort((a, b) => b.length - a.length)
    : secrets) {
    const pattern = echoPattern(secret);
    if (pattern) out = out.replace(pattern, mark);
  }
  return out;
}
