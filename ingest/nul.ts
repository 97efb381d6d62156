// A NUL byte has no place in text a database keeps (PostgreSQL text and jsonb refuse it).

/** Where the first NUL byte of some text is (1-based line and column, in bytes), or null. */
export function nulAt(bytes: Uint8Array): { line: number; column: number } | null {
  const at = bytes.indexOf(0);
  if (at < 0) return null;
  let line = 1;
  let start = 0;
  for (let i = 0; i < at; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: at - start + 1 };
}
