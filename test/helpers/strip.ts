/** Removes the `$kind` discriminator the schemas add, to compare a parse with its input. */
export function stripDiscriminators(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDiscriminators);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== '$kind')
        .map(([key, v]) => [key, stripDiscriminators(v)]),
    );
  }
  return value;
}
