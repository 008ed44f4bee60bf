// The subset of the WebTransport library's session (a W3C WebTransport object) this binding uses.

export interface BidiStream {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

export interface LibrarySession {
  readonly ready: Promise<unknown>;
  readonly closed: Promise<{ closeCode?: number; reason?: string } | undefined>;
  readonly incomingBidirectionalStreams: ReadableStream<BidiStream>;
  readonly incomingUnidirectionalStreams: ReadableStream<ReadableStream<Uint8Array>>;
  createBidirectionalStream(): Promise<BidiStream>;
  createUnidirectionalStream(): Promise<WritableStream<Uint8Array>>;
  readonly datagrams: {
    readonly readable: ReadableStream<Uint8Array>;
    createWritable(): WritableStream<Uint8Array>;
  };
  close(info?: { closeCode?: number; reason?: string }): void;
}
