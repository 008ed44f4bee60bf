// The correct mock client over Streamable HTTP: every module (the WebTransport-only cases say they do not apply).
import { CLIENT_CASE_MODULES } from '../../../suites/client/index.js';
import { correctClientRun } from './correct.js';

correctClientRun('http', Object.keys(CLIENT_CASE_MODULES));
