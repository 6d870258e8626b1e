/**
 * Row notes for checksum bisection on DuckDB (bisection.ts): while the first pass hashes a Parquet
 * file's rows, `note_row(book, row, hash)` keeps the low 16 bits of each row's key hash by its row
 * number (2 bytes a row, 20 MB for 10 M rows), so the read after the pass asks DuckDB for the few
 * rows whose noted bits are wanted, by number, instead of hashing every row of the file again
 * (`row_chosen(book, row)`: 0.6 s instead of 1.3–1.6 s at 10 M rows). A book lives as long as one comparison.
 */
import { BIGINT, BOOLEAN, DuckDBScalarFunction, INTEGER, type DuckDBConnection, type DuckDBVector } from '@duckdb/node-api';
import { wordsOf } from './duckdbRows.ts';
import type { RowNotes } from './engine.ts';

/** Rows a page of notes holds (2^20: 2 MB a page). */
const PAGE = 2 ** 20;

/** One comparison's notes: a row's low 16 hash bits, by its number, in pages made as rows come. */
class RowBook {
  private pages: Uint16Array[] = [];

  note(row: number, bits: number): void {
    const page = Math.floor(row / PAGE);
    (this.pages[page] ??= new Uint16Array(PAGE))[row % PAGE] = bits;
  }

  /** Chooses the rows noted with bits among `wanted` (a flag per value of 16 bits): a bit a row. */
  choose(wanted: Uint8Array): void {
    this.chosen = this.pages.map((page) => {
      const bits = new Uint8Array(PAGE / 8);
      for (let at = 0; at < page.length; at += 1) if (wanted[page[at]!]) bits[at >> 3]! |= 1 << (at & 7);
      return bits;
    });
  }

  /** Whether row `row` is chosen. */
  isChosen(row: number): boolean {
    const bits = this.chosen[Math.floor(row / PAGE)];
    const at = row % PAGE;
    return bits !== undefined && (bits[at >> 3]! & (1 << (at & 7))) !== 0;
  }

  private chosen: Uint8Array[] = [];
}

/**
 * The books of one DuckDB connection and the SQL function that writes them.
 * @example
 * const notebooks = new RowNotebooks(connection);
 * const notes = notebooks.open("read_parquet('fi.parquet', file_row_number = true)");
 * // compile the first pass with notes.noted(…), a read with notes.choose(…), then:
 * notes.close();
 */
export class RowNotebooks {
  private books = new Map<number, RowBook>();
  private next = 1;

  constructor(connection: DuckDBConnection) {
    connection.registerScalarFunction(
      DuckDBScalarFunction.create({
        name: 'note_row',
        returnType: BIGINT,
        parameterTypes: [INTEGER, BIGINT, BIGINT],
        // Not deterministic: DuckDB must call it for every row (its result is the hash it is given).
        volatile: true,
        mainFunction: (_info, input, output) => {
          const rows = input.rowCount;
          const book = this.books.get(Number(input.getColumnVector(0).getItem(0)));
          const numbers = input.getColumnVector(1) as DuckDBVector<bigint>;
          const hashes = input.getColumnVector(2) as DuckDBVector<bigint>;
          const [numberWords, hashWords, outputWords] = [wordsOf(numbers), wordsOf(hashes), wordsOf(output as DuckDBVector<bigint>)];
          for (let row = 0; row < rows; row += 1) {
            const number = rowNumber(numbers, numberWords, row);
            const low = hashWords ? hashWords[row * 2]! : Number(BigInt.asIntN(32, hashes.getItem(row) ?? 0n));
            book?.note(number, low & 0xffff);
            if (outputWords && hashWords) {
              outputWords[row * 2] = hashWords[row * 2]!;
              outputWords[row * 2 + 1] = hashWords[row * 2 + 1]!;
            } else output.setItem(row, hashes.getItem(row));
          }
          output.flush();
        },
      }),
    );
    connection.registerScalarFunction(
      DuckDBScalarFunction.create({
        name: 'row_chosen',
        returnType: BOOLEAN,
        parameterTypes: [INTEGER, BIGINT],
        volatile: true,
        mainFunction: (_info, input, output) => {
          const rows = input.rowCount;
          const book = this.books.get(Number(input.getColumnVector(0).getItem(0)));
          const numbers = input.getColumnVector(1) as DuckDBVector<bigint>;
          const words = wordsOf(numbers);
          for (let row = 0; row < rows; row += 1) {
            output.setItem(row, book?.isChosen(rowNumber(numbers, words, row)) ?? false);
          }
          output.flush();
        },
      }),
    );
  }

  /** A new book for a comparison reading `source` (a FROM item whose rows carry `file_row_number`). */
  open(source: string): RowNotes {
    const token = this.next++;
    const book = new RowBook();
    this.books.set(token, book);
    return {
      source,
      row: 'file_row_number',
      noted: (row, hash) => `note_row(${token}, ${row}, ${hash})`,
      choose: (wanted) => {
        book.choose(wanted);
        return `row_chosen(${token}, file_row_number)`;
      },
      close: () => void this.books.delete(token),
    };
  }
}

/** Row `row`'s number in a BIGINT vector: from its words (wordsOf) when it has them, else its item. */
function rowNumber(numbers: DuckDBVector<bigint>, words: Int32Array | undefined, row: number): number {
  return words ? words[row * 2 + 1]! * 2 ** 32 + (words[row * 2]! >>> 0) : Number(numbers.getItem(row));
}
