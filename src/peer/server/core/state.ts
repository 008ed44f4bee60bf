// What one MCP session of the mock server has negotiated so far: whether initialize succeeded and
// notifications/initialized came, the protocol version, both sides' capabilities and the logging
// level. Every part of the session (initialize, built-in requests, requests to the client) reads
// and writes this one record.
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, type ProtocolVersion } from '../../../protocol/methods.js';
import type { LogLevel } from '../extension.js';

export class SessionState {
  initialized = false;
  initializedNotified = false;
  protocolVersion: ProtocolVersion = LATEST_PROTOCOL_VERSION;
  clientCapabilities: Record<string, unknown> = {};
  clientInfo: { name: string; version: string } | undefined;
  /** The server's capabilities as declared in the initialize result. */
  capabilities: Record<string, unknown> = {};
  /** The level set with logging/setLevel (none: every level is sent). */
  logLevel: LogLevel | undefined;
  /** Resolves once the client sent notifications/initialized. */
  readonly initializedNotice: Promise<void>;
  #notified!: () => void;

  constructor() {
    this.initializedNotice = new Promise<void>((resolve) => (this.#notified = resolve));
  }

  markInitializedNotified(): void {
    this.initializedNotified = true;
    this.#notified();
  }

  /** Whether the negotiated version is `version` or a later one. */
  atLeast(version: ProtocolVersion): boolean {
    return PROTOCOL_VERSIONS.indexOf(this.protocolVersion) >= PROTOCOL_VERSIONS.indexOf(version);
  }
}
