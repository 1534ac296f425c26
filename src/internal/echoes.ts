/**
 * The forms in which a secret sent to a server may come back in its answer, so that each can be
 * taken out of what is kept, logged or shown.
 *
 * @module
 */

// Every character outside printable ASCII as a JSON `\uXXXX` escape, as PHP's json_encode writes it
// (lowercase hex) and others in capitals.
const asciiOnly = (json: string, hex: (code: string) => string) =>
  json.replace(/[^\x20-\x7e]/g, (c) => `\\u${hex(c.charCodeAt(0).toString(16).padStart(4, '0'))}`);

/**
 * `secret` as sent, and as a server may echo it: URL-encoded, form-encoded, and inside a JSON
 * string (escaped as JavaScript does, with `/` as `\/` as PHP does, and with every character
 * outside ASCII as `\uXXXX`). Longest first, so that one form is never half-replaced through a
 * shorter one inside it; empty for an empty secret.
 */
export function echoedForms(secret: string): string[] {
  if (!secret) return [];
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
  for (const escaped of [json, json.replaceAll('/', '\\/')]) {
    forms.push(
      escaped,
      asciiOnly(escaped, (h) => h),
      asciiOnly(escaped, (h) => h.toUpperCase()),
    );
  }
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** `text` with every form of each of `secrets` ({@link echoedForms}) replaced by `mark`. */
export function withoutEchoes(text: string, secrets: readonly string[], mark: string): string {
  const forms = [...new Set(secrets.flatMap(echoedForms))].sort((a, b) => b.length - a.length);
  return forms.reduce((out, form) => out.replaceAll(form, mark), text);
}
