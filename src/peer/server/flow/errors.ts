// Errors of the MCP Flow engine's own inputs: wizard files and engine options. Errors a peer causes
// on the wire are RpcErrors (see session-errors.ts).
import { MockServerError } from '../extension.js';

/** A wizard file that cannot be read or breaks wizard.schema.json or a rule the schema cannot say. */
export class WizardFileError extends MockServerError {
  /** The file (or a label such as "<inline wizard>"). */
  readonly file: string;
  /** JSON Pointer of the offending value ('' for the whole document). */
  readonly pointer: string;
  constructor(file: string, pointer: string, message: string, code = 'WIZARD_INVALID') {
    super(code, `${file}${pointer === '' ? '' : ` at ${pointer}`}: ${message}`);
    this.file = file;
    this.pointer = pointer;
  }
}

/** An engine option that makes no sense (e.g. a negative timeout, two wizards with one name). */
export class FlowOptionsError extends MockServerError {
  readonly option: string;
  constructor(option: string, message: string) {
    super('FLOW_OPTIONS_INVALID', `flowExtension option ${option}: ${message}`);
    this.option = option;
  }
}
