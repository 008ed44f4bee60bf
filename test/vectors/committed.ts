// The committed vector files, read with the package's own format checker.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultVectorsDir, parseVectorFile, type Vector, type VectorFile } from '../../src/vectors/vector-file.js';

export const vectorsDir = defaultVectorsDir();

export const vectorFileNames: string[] = readdirSync(vectorsDir).filter((n) => n.endsWith('.json')).sort();

export const vectorFiles: Record<string, VectorFile> = Object.fromEntries(
  vectorFileNames.map((name) => [name, parseVectorFile(readFileSync(join(vectorsDir, name), 'utf8'), `vectors/${name}`)]),
);

export const allVectors: Vector[] = Object.values(vectorFiles).flatMap((f) => f.vectors);

/** `[id, vector]` rows for it.each. */
export function rows(vectors: Vector[]): Array<[string, Vector]> {
  return vectors.map((v) => [v.id, v]);
}
