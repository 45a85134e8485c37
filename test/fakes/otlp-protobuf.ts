/**
 * OTLP's protobuf encoding of an ExportTraceServiceRequest, read into the shape of its JSON encoding (hex ids,
 * nanoseconds as decimal strings), so the receiver checks both the same way. Only the fields a trace of ours
 * carries are read; others are skipped by their wire type, as protobuf readers do.
 */
type Fields = Map<number, (bigint | Buffer)[]>;

/** The fields of one message: varints and fixed numbers as bigint, length-delimited ones as bytes. */
function fieldsOf(bytes: Buffer): Fields {
  const fields: Fields = new Map();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('protobuf: a varint runs past the end');
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    let value: bigint | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = bytes.readBigUInt64LE(at);
      at += 8;
    } else if (wire === 5) {
      value = BigInt(bytes.readUInt32LE(at));
      at += 4;
    } else if (wire === 2) {
      const length = Number(varint());
      value = bytes.subarray(at, at + length);
      at += length;
    } else throw new Error(`protobuf: wire type ${wire} is not read here`);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

const bytesOf = (fields: Fields, field: number): Buffer[] => (fields.get(field) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));
const one = (fields: Fields, field: number): Buffer | undefined => bytesOf(fields, field)[0];
const numberOf = (fields: Fields, field: number): bigint | undefined => (fields.get(field) ?? []).find((v): v is bigint => typeof v === 'bigint');
const text = (fields: Fields, field: number): string | undefined => one(fields, field)?.toString('utf8');

function anyValue(bytes: Buffer): unknown {
  const f = fieldsOf(bytes);
  if (f.has(1)) return { stringValue: text(f, 1) };
  if (f.has(2)) return { boolValue: numberOf(f, 2) === 1n };
  if (f.has(3)) return { intValue: BigInt.asIntN(64, numberOf(f, 3)!).toString() };
  if (f.has(4)) return { doubleValue: Buffer.from(new BigUint64Array([numberOf(f, 4)!]).buffer).readDoubleLE(0) };
  if (f.has(5)) return { arrayValue: { values: bytesOf(fieldsOf(one(f, 5)!), 1).map(anyValue) } };
  return {};
}

const keyValues = (list: Buffer[]) =>
  list.map((bytes) => {
    const f = fieldsOf(bytes);
    return { key: text(f, 1) ?? '', value: anyValue(one(f, 2) ?? Buffer.alloc(0)) };
  });

function span(bytes: Buffer): unknown {
  const f = fieldsOf(bytes);
  const status = one(f, 15);
  const statusFields = status ? fieldsOf(status) : undefined;
  return {
    traceId: one(f, 1)?.toString('hex') ?? '',
    spanId: one(f, 2)?.toString('hex') ?? '',
    parentSpanId: one(f, 4)?.toString('hex'),
    name: text(f, 5) ?? '',
    kind: Number(numberOf(f, 6) ?? 0n),
    startTimeUnixNano: String(numberOf(f, 7) ?? 0n),
    endTimeUnixNano: String(numberOf(f, 8) ?? 0n),
    attributes: keyValues(bytesOf(f, 9)),
    status: statusFields ? { message: text(statusFields, 2), code: Number(numberOf(statusFields, 3) ?? 0n) } : undefined,
  };
}

/** The request in OTLP/JSON's shape. */
export function decodeTraceRequest(body: Buffer): unknown {
  return {
    resourceSpans: bytesOf(fieldsOf(body), 1).map((resourceSpans) => {
      const f = fieldsOf(resourceSpans);
      const resource = one(f, 1);
      return {
        resource: resource ? { attributes: keyValues(bytesOf(fieldsOf(resource), 1)) } : undefined,
        scopeSpans: bytesOf(f, 2).map((scopeSpans) => {
          const s = fieldsOf(scopeSpans);
          const scope = one(s, 1);
          return { scope: scope ? { name: text(fieldsOf(scope), 1) ?? '' } : undefined, spans: bytesOf(s, 2).map(span) };
        }),
      };
    }),
  };
}
