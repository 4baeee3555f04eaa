/**
 * Small checks on JSON values used by the validator: type names, `type` membership, string
 * length in code points, and an exact decimal `multipleOf`.
 */

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return typeName(value) === type;
  }
}

export function codePointLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    length += 1;
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
  }
  return length;
}

/** Exact decimal test: both numbers as integer × 10^exponent, compared with BigInt. */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !(divisor > 0)) return false;
  const [valueDigits, valueExponent] = decimalParts(value);
  const [divisorDigits, divisorExponent] = decimalParts(divisor);
  const shift = valueExponent - divisorExponent;
  if (shift >= 0) return (valueDigits * 10n ** BigInt(shift)) % divisorDigits === 0n;
  return valueDigits % (divisorDigits * 10n ** BigInt(-shift)) === 0n;
}

function decimalParts(value: number): [bigint, number] {
  const [mantissa, exponentText] = Math.abs(value).toString().split('e') as [string, string | undefined];
  const point = mantissa.indexOf('.');
  const fraction = point === -1 ? 0 : mantissa.length - point - 1;
  return [BigInt(mantissa.replace('.', '')), Number(exponentText ?? 0) - fraction];
}
