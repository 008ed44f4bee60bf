// Lazy, quiet loading of @fails-components/webtransport. Importing it without the optional
// HTTP/3 addon makes the library print "http3 loader: Error ..." with a stack trace; that
// specific output is captured here (kept in `loadNotes`) instead of reaching users' consoles.
import { Http3UnavailableError } from '../errors.js';

type Library = typeof import('@fails-components/webtransport');

const HTTP3_PACKAGE = '@fails-components/webtransport-transport-http3-quiche';
const LOADER_NOISE = [/^http3 loader:/, /^Problem loading http3-quiche/, /^Did you install @fails-components/];

let loading: Promise<Library> | undefined;
/** What the library printed while loading (the missing-addon messages), for diagnostics. */
export const loadNotes: string[] = [];

function isLoaderNoise(args: unknown[]): boolean {
  const first = args[0];
  return typeof first === 'string' && LOADER_NOISE.some((pattern) => pattern.test(first));
}

/** Imports the library once, keeping its HTTP/3 loader messages out of the console. */
export function loadWebTransportLibrary(): Promise<Library> {
  loading ??= (async () => {
    const originalLog = console.log;
    const originalError = console.error;
    const filter =
      (original: (...args: unknown[]) => void) =>
      (...args: unknown[]) => {
        if (isLoaderNoise(args)) loadNotes.push(args.map(String).join(' '));
        else original(...args);
      };
    console.log = filter(originalLog);
    console.error = filter(originalError);
    try {
      const library = await import('@fails-components/webtransport');
      // The loader's messages are printed when its attempt to import the addon settles.
      await library.quicheLoaded;
      await http3Probe();
      await new Promise((resolve) => setImmediate(resolve));
      return library;
    } finally {
      console.log = originalLog;
      console.error = originalError;
    }
  })();
  return loading;
}

let probe: Promise<{ available: boolean; detail?: string }> | undefined;
function http3Probe(): Promise<{ available: boolean; detail?: string }> {
  probe ??= import(HTTP3_PACKAGE).then(
    () => ({ available: true }),
    (error: Error) => ({ available: false, detail: error.message.split('\n')[0] }),
  );
  return probe;
}

/** True when the native HTTP/3 addon can be loaded. */
export async function isHttp3Available(): Promise<boolean> {
  return (await http3Probe()).available;
}

/** Throws Http3UnavailableError (with how to get the addon) unless HTTP/3 can be used. */
export async function requireHttp3(): Promise<void> {
  const { available, detail } = await http3Probe();
  if (!available) throw new Http3UnavailableError(detail);
}
