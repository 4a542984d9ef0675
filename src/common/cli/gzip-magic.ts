import { open } from 'node:fs/promises';

/**
 * Whether `file` starts with gzip's magic bytes; a file that cannot be opened throws
 * `unreadable(message)`, the command's error for a bad file.
 */
export async function startsWithGzipMagic(
  file: string,
  unreadable: (message: string) => Error,
): Promise<boolean> {
  const handle = await open(file, 'r').catch((error: Error) => {
    throw unreadable(`cannot read ${file}: ${error.message}`);
  });
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}
