import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { HivewatchError } from './errors/hivewatch-error.js';

/**
 * Reading a file an operator named (a flow for `hivewatch check`, `run`, or one in the flows
 * folder) when it may be anything: a FIFO would block the read until some writer comes, forever;
 * `/dev/zero` or `/dev/urandom` never end and would fill memory. Only a regular file of at most
 * `maxBytes` is read. The open does not block (O_NONBLOCK: a FIFO opens at once and is then seen
 * for what it is), the kind and size come from the open descriptor (what is judged is what is
 * read), and the read stops one byte past the bound in case the file grew since.
 */

/** The file is not a regular file, or is larger than the bound: `message` says which, in words. */
export class NotReadableFile extends HivewatchError {
  constructor(message: string) {
    super('USER_FILE_NOT_READABLE', { message });
    this.name = 'NotReadableFile';
  }
}

/** What a special file is, in words ('a FIFO (named pipe)', 'a character device', …); null for a regular file or a directory. */
export function specialFileKind(stats: Stats): string | null {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return null;
}

function kindOf(stats: Stats): string | null {
  if (stats.isFile()) return null;
  if (stats.isDirectory()) return 'a directory';
  return specialFileKind(stats) ?? 'not a file';
}

function tooLarge(maxBytes: number): NotReadableFile {
  const bound = maxBytes % 1_048_576 === 0 ? `${maxBytes / 1_048_576} MiB` : `${maxBytes} bytes`;
  return new NotReadableFile(`it is larger than ${bound}, the most this file may have`);
}

/** The bytes of the regular file at `path`; NotReadableFile for anything else or anything larger, fs errors as thrown. */
export function readRegularFile(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    // Opening a Unix socket fails with ENXIO (open(2)).
    if ((error as NodeJS.ErrnoException | null)?.code === 'ENXIO') throw new NotReadableFile('it is a socket, not a regular file');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    const kind = kindOf(stats);
    if (kind !== null) throw new NotReadableFile(`it is ${kind}, not a regular file`);
    if (stats.size > maxBytes) throw tooLarge(maxBytes);
    // Sized by fstat; grown (up to one byte past the bound) only for a file written to meanwhile.
    let buffer = Buffer.alloc(stats.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw tooLarge(maxBytes);
        const bigger = Buffer.alloc(maxBytes + 1);
        buffer.copy(bigger);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return buffer.subarray(0, length);
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}
