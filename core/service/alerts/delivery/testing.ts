import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Receivers that would stall a sender, as real HTTP servers on 127.0.0.1: `hang` reads the
 * request and never answers; `endless` answers 200 and then streams its body for as long as the
 * sender keeps the connection (64 KiB at a time, as fast as the socket takes it). Each connection
 * is recorded: the delivery's subject (from the JSON body), how many body bytes were offered,
 * and whether its socket closed. Neither receiver ever closes a connection by itself, so a
 * closed one was closed by the sender (or by `stop`).
 */

export type StallKind = 'hang' | 'endless';

export interface StalledConnection {
  subject: string | null;
  /** Body bytes handed to the socket before it closed (endless only). */
  offered: number;
  closed: boolean;
}

const CHUNK = Buffer.alloc(64 * 1_024, 0x61);

export class StallingReceiver {
  readonly connections: StalledConnection[] = [];
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;

  constructor(readonly kind: StallKind) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const connection: StalledConnection = { subject: null, offered: 0, closed: false };
      this.connections.push(connection);
      request.socket.once('close', () => (connection.closed = true));
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        connection.subject = subjectOf(Buffer.concat(chunks).toString('utf8'));
        if (this.kind === 'endless') stream(response, connection);
      });
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Connections open now. */
  open(): number {
    return this.sockets.size;
  }

  /** The connection that carried `subject`'s delivery, if it came. */
  connectionOf(subject: string): StalledConnection | undefined {
    return this.connections.find((connection) => connection.subject === subject);
  }

  /** Drops every open connection, as a receiver that gives up would: the sender sees a reset. */
  dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    this.dropAll();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function subjectOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { subject?: unknown };
    return typeof body.subject === 'string' ? body.subject : null;
  } catch {
    return null;
  }
}

/** 200, then body bytes as fast as the socket takes them, until the sender closes it. */
function stream(response: ServerResponse, connection: StalledConnection): void {
  response.on('error', () => undefined);
  response.writeHead(200, { 'content-type': 'text/plain' });
  const more = (): void => {
    while (!connection.closed && !response.destroyed) {
      connection.offered += CHUNK.length;
      if (!response.write(CHUNK)) {
        response.once('drain', more);
        return;
      }
    }
  };
  more();
}
