// A file prompt's answer from a path typed in the terminal: `{ name, mimeType?, size, content }`
// with the content in base64 (docs/wizards.md, file answers).
import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { FileAnswer } from './answer-input.js';
import { FileAnswerError } from './errors.js';

/** Media types of the extensions a person is likely to attach; others are sent without one. */
const MEDIA_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
};

/** Reads the file at `path` (FileAnswerError naming it when it is missing, a directory or unreadable). */
export function readFileAnswer(path: string): FileAnswer {
  let bytes: Buffer;
  try {
    if (statSync(path).isDirectory()) throw new FileAnswerError(path, 'it is a directory');
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof FileAnswerError) throw error;
    throw new FileAnswerError(path, (error as NodeJS.ErrnoException).code ?? (error as Error).message, { cause: error });
  }
  const mimeType = MEDIA_TYPES[extname(path).toLowerCase()];
  return { name: basename(path), ...(mimeType ? { mimeType } : {}), size: bytes.length, content: bytes.toString('base64') };
}
