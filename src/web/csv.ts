/**
 * RFC 4180 CSV. A cell that a spreadsheet would read as a formula (starting with = + - @ or a
 * tab or carriage return) is prefixed with an apostrophe, so that an exported reseller email or
 * DNS record cannot run anything when the file is opened.
 */
export function toCsv(rows: ReadonlyArray<ReadonlyArray<unknown>>): string {
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

function cell(value: unknown): string {
  let text = value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
