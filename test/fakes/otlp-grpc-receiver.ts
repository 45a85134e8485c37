/**
 * An OTLP/gRPC trace receiver on 127.0.0.1, speaking gRPC's wire format over HTTP/2 without TLS (h2c), as a
 * collector's port 4317 does: a unary `TraceService/Export` call whose body is one length-prefixed message (a
 * compressed flag, a 4-byte big-endian length, the protobuf ExportTraceServiceRequest), answered with HTTP 200,
 * an empty ExportTraceServiceResponse and the trailer `grpc-status: 0`. Built on node:http2 rather than a gRPC
 * library, so the test sees the bytes the exporter really sends.
 */
import { createServer, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decoded, receiveExport, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';

const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** gRPC status codes the receiver answers with (grpc's `Status`). */
const OK = 0;
const INVALID_ARGUMENT = 3;
const UNIMPLEMENTED = 12;

export async function startOtlpGrpcReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const contentTypes: string[] = [];
  const server = createServer();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const type = String(headers['content-type']);
      const path = String(headers[':path']);
      if (headers[':method'] !== 'POST' || path !== EXPORT_PATH || !type.startsWith('application/grpc')) {
        rejected.push(`${String(headers[':method'])} ${path} ${type}`);
        return answer(stream, UNIMPLEMENTED);
      }
      contentTypes.push(type);
      const message = unframed(Buffer.concat(chunks), String(headers['grpc-encoding'] ?? 'identity'));
      const problem = typeof message === 'string' ? message : receiveExport(decoded(message), spans);
      if (problem !== undefined) {
        rejected.push(problem);
        return answer(stream, INVALID_ARGUMENT);
      }
      answer(stream, OK);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    rejected,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The one message of a unary call's body, or what is wrong with its framing. */
function unframed(body: Buffer, encoding: string): Buffer | string {
  if (body.length < 5) return `a gRPC message needs a 5-byte prefix; the body has ${body.length} bytes`;
  const compressed = body[0] === 1;
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return `the prefix says ${length} bytes; the body holds ${body.length - 5}`;
  const message = body.subarray(5);
  if (!compressed) return message;
  return encoding === 'gzip' ? gunzipSync(message) : `a compressed message in an encoding not read here: ${encoding}`;
}

/** HTTP 200 with the status in the trailers (gRPC's way), and an empty response message when it is OK. */
function answer(stream: ServerHttp2Stream, status: number): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(status) }));
  stream.end(status === OK ? Buffer.alloc(5) : undefined);
}
