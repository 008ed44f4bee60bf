// `mcp-flow-conformance self-check`: decodes every hex test vector in vectors/ through src/wire and
// validates every example beside every schema in schemas/ (`self-test`, what `npm start` runs,
// does this first). The vector file format is src/vectors/vector-file.ts (documented in
// vectors/README.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SchemaError, SchemaRegistry, type SchemaExample } from '../../schema/index.js';
import { checkVector, defaultVectorsDir, parseVectorFile, VectorFileError, type VectorFile } from '../../vectors/vector-file.js';
import { type CliCommand, type CliIo, ExitCode } from '../io.js';
import { isRecord } from '../../wire/index.js';

interface Tally {
  passed: number;
  failed: number;
}

function checkVectorsDir(dir: string, io: CliIo, tally: Tally): void {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a folder');
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch (error) {
    io.out(`vectors: FAIL cannot read the folder ${dir}: ${(error as Error).message}`);
    tally.failed += 1;
    return;
  }
  if (names.length === 0) {
    io.out(`vectors: FAIL no *.json vector files in ${dir}`);
    tally.failed += 1;
    return;
  }
  for (const name of names) {
    const label = `vectors/${name}`;
    let file: VectorFile;
    try {
      file = parseVectorFile(readFileSync(join(dir, name), 'utf8'), label);
    } catch (error) {
      if (error instanceof VectorFileError) io.out(`${label}: FAIL ${error.detail}`);
      else io.out(`${label}: FAIL cannot read: ${(error as Error).message}`);
      tally.failed += 1;
      continue;
    }
    const lines: string[] = [];
    let passed = 0;
    for (const vector of file.vectors) {
      const problems = checkVector(vector);
      if (problems.length === 0) passed += 1;
      else lines.push(...problems.map((p) => `  FAIL ${vector.id}: ${p}`));
    }
    const failed = file.vectors.length - passed;
    io.out(`${label}: ${passed} passed, ${failed} failed`);
    for (const line of lines) io.out(line);
    tally.passed += passed;
    tally.failed += failed;
  }
}

function checkSchemaExamples(root: string | undefined, io: CliIo, tally: Tally): void {
  let registry: SchemaRegistry;
  let examples: SchemaExample[];
  try {
    registry = SchemaRegistry.load(root === undefined ? {} : { root });
    examples = registry.examples();
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    io.out(`schemas: FAIL ${error.message}`);
    tally.failed += 1;
    return;
  }
  if (examples.length === 0) {
    io.out(`schemas: FAIL no schema examples under ${registry.root}`);
    tally.failed += 1;
    return;
  }
  const byFile = new Map<string, SchemaExample[]>();
  for (const example of examples) byFile.set(example.file, [...(byFile.get(example.file) ?? []), example]);
  for (const [file, mine] of [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const lines: string[] = [];
    let passed = 0;
    mine.forEach((example) => {
      let problem: string | undefined;
      try {
        problem = registry.exampleProblem(example);
      } catch (error) {
        if (!(error instanceof SchemaError)) throw error;
        problem = error.message;
      }
      if (problem === undefined) passed += 1;
      else lines.push(`  FAIL ${example.valid ? 'valid' : 'invalid'} "${example.description}": ${problem}`);
    });
    io.out(`schemas/${file}: ${passed} passed, ${mine.length - passed} failed`);
    for (const line of lines) io.out(line);
    tally.passed += passed;
    tally.failed += mine.length - passed;
  }
}

export const selfCheckCommand: CliCommand = {
  command: 'self-check',
  describe: 'Decode every test vector in vectors/ and validate every schema example in schemas/',
  builder: (yargs) =>
    yargs
      .option('vectors', { type: 'string', describe: 'folder of vector files (default: the package\'s vectors/)' })
      .option('schemas', { type: 'string', describe: 'schemas root folder (default: the package\'s schemas/)' }),
  run: async (args, io) => {
    io.out('self-check: decodes every hex test vector through the wire layer and validates every schema example.');
    const tally: Tally = { passed: 0, failed: 0 };
    checkVectorsDir(typeof args.vectors === 'string' ? resolve(args.vectors) : defaultVectorsDir(), io, tally);
    checkSchemaExamples(typeof args.schemas === 'string' ? resolve(args.schemas) : undefined, io, tally);
    io.out(`${tally.passed} passed, ${tally.failed} failed`);
    return tally.failed === 0 ? ExitCode.ok : ExitCode.failure;
  },
};

// ---------------------------------------------------------------------------------------------
