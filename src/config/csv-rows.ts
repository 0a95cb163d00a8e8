// CSV text as rows of cells (RFC 4180: quoted cells may hold commas, doubled quotes and line
// breaks), for the files a user names: a recorded workload to replay. Pure: the CLI reads the file.

/** One row and the line of the file it starts on (1-based), for an error that names it. */
export interface CsvRow {
  line: number;
  cells: string[];
}

/** Rows of `text`, blank lines skipped; an unterminated quote ends the text as one last cell. */
export function* csvRows(text: string): Generator<CsvRow> {
  let line = 1;
  let at = 0;
  while (at < text.length) {
    const start = line;
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    let ended = false;
    for (; at < text.length && !ended; at++) {
      const c = text[at]!;
      if (quoted) {
        if (c === '"' && text[at + 1] === '"') {
          cell += '"';
          at++;
        } else if (c === '"') quoted = false;
        else {
          if (c === '\n') line++;
          cell += c;
        }
      } else if (c === '"' && cell === '') quoted = true;
      else if (c === ',') {
        cells.push(cell);
        cell = '';
      } else if (c === '\n') {
        line++;
        ended = true;
      } else if (c !== '\r') cell += c;
    }
    cells.push(cell);
    if (cells.length > 1 || cells[0]!.trim() !== '') yield { line: start, cells };
  }
}
