/**
 * @module ingest/otlp/proto
 * OTLP/HTTP protobuf bodies, decoded with the OpenTelemetry project's own definitions: the traces
 * and metrics messages from the protobufjs static root `@opentelemetry/otlp-transformer` ships
 * (`build/esm/generated/root.js`). That root (0.215.0) no longer holds the logs messages (the
 * package writes logs with a serializer of its own), so the logs service's messages are declared
 * here as a protobufjs reflection descriptor, field for field as `opentelemetry-proto` v1.x
 * `logs/v1/logs.proto`, `collector/logs/v1/logs_service.proto`, `common/v1/common.proto` and
 * `resource/v1/resource.proto` define them; test/unit/otlp-*.test.ts checks it against the
 * package's own logs serializer. protobufjs decodes; nothing here reads a wire byte itself.
 */
import protobuf from 'protobufjs/light.js'
import otelRoot from '@opentelemetry/otlp-transformer/build/esm/generated/root.js'

/** A protobufjs message type, as far as this module uses it. */
interface MessageType {
  decode(bytes: Uint8Array): unknown
  encode(message: unknown): { finish(): Uint8Array }
  fromObject(object: Record<string, unknown>): unknown
}

const field = (type: string, id: number, rule?: 'repeated') =>
  rule ? { type, id, rule } : { type, id }

/** `opentelemetry-proto` v1.x: the logs messages and the common ones they use. */
const LOGS_DESCRIPTOR = {
  nested: {
    common: {
      nested: {
        AnyValue: {
          oneofs: {
            value: {
              oneof: [
                'stringValue',
                'boolValue',
                'intValue',
                'doubleValue',
                'arrayValue',
                'kvlistValue',
                'bytesValue',
              ],
            },
          },
          fields: {
            stringValue: field('string', 1),
            boolValue: field('bool', 2),
            intValue: field('int64', 3),
            doubleValue: field('double', 4),
            arrayValue: field('ArrayValue', 5),
            kvlistValue: field('KeyValueList', 6),
            bytesValue: field('bytes', 7),
          },
        },
        ArrayValue: { fields: { values: field('AnyValue', 1, 'repeated') } },
        KeyValueList: { fields: { values: field('KeyValue', 1, 'repeated') } },
        KeyValue: { fields: { key: field('string', 1), value: field('AnyValue', 2) } },
        InstrumentationScope: {
          fields: {
            name: field('string', 1),
            version: field('string', 2),
            attributes: field('KeyValue', 3, 'repeated'),
            droppedAttributesCount: field('uint32', 4),
          },
        },
        Resource: {
          fields: {
            attributes: field('common.KeyValue', 1, 'repeated'),
            droppedAttributesCount: field('uint32', 2),
          },
        },
      },
    },
    logs: {
      nested: {
        ResourceLogs: {
          fields: {
            resource: field('common.Resource', 1),
            scopeLogs: field('ScopeLogs', 2, 'repeated'),
            schemaUrl: field('string', 3),
          },
        },
        ScopeLogs: {
          fields: {
            scope: field('common.InstrumentationScope', 1),
            logRecords: field('LogRecord', 2, 'repeated'),
            schemaUrl: field('string', 3),
          },
        },
        LogRecord: {
          fields: {
            timeUnixNano: field('fixed64', 1),
            observedTimeUnixNano: field('fixed64', 11),
            // SeverityNumber: an enum on the wire is a varint
            severityNumber: field('int32', 2),
            severityText: field('string', 3),
            body: field('common.AnyValue', 5),
            attributes: field('common.KeyValue', 6, 'repeated'),
            droppedAttributesCount: field('uint32', 7),
            flags: field('fixed32', 8),
            traceId: field('bytes', 9),
            spanId: field('bytes', 10),
            eventName: field('string', 12),
          },
        },
        ExportLogsServiceRequest: {
          fields: { resourceLogs: field('ResourceLogs', 1, 'repeated') },
        },
        ExportLogsServiceResponse: {
          fields: { partialSuccess: field('ExportLogsPartialSuccess', 1) },
        },
        ExportLogsPartialSuccess: {
          fields: {
            rejectedLogRecords: field('int64', 1),
            errorMessage: field('string', 2),
          },
        },
      },
    },
  },
}

const logsRoot = protobuf.Root.fromJSON(LOGS_DESCRIPTOR)
const logsType = (name: string) => logsRoot.lookupType(`logs.${name}`) as unknown as MessageType

/** The generated root's namespaces this module reads (its typings call it a plain `Root`). */
interface OtelRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: Record<string, MessageType> }
        metrics: { v1: Record<string, MessageType> }
      }
    }
  }
}

const collector = (otelRoot as unknown as OtelRoot).opentelemetry.proto.collector

/** The OTLP signals the service takes. */
export type OtlpSignal = 'logs' | 'traces' | 'metrics'

/** The request and response message of each signal's export service. */
export const OTLP_MESSAGES: Record<OtlpSignal, { request: MessageType; response: MessageType }> = {
  logs: {
    request: logsType('ExportLogsServiceRequest'),
    response: logsType('ExportLogsServiceResponse'),
  },
  traces: {
    request: collector.trace.v1.ExportTraceServiceRequest,
    response: collector.trace.v1.ExportTraceServiceResponse,
  },
  metrics: {
    request: collector.metrics.v1.ExportMetricsServiceRequest,
    response: collector.metrics.v1.ExportMetricsServiceResponse,
  },
}

/**
 * Decodes a protobuf export request.
 * @param signal - the signal of the route
 * @param bytes - the body (decompressed)
 * @throws Error (protobufjs') when the bytes are not the message
 */
export function decodeExport(signal: OtlpSignal, bytes: Uint8Array): unknown {
  return OTLP_MESSAGES[signal].request.decode(bytes)
}

/**
 * Encodes an export response.
 * @param signal - the signal of the route
 * @param response - the response as OTLP/JSON names it (`{partialSuccess: {...}}` or `{}`)
 */
export function encodeResponse(signal: OtlpSignal, response: Record<string, unknown>): Uint8Array {
  const type = OTLP_MESSAGES[signal].response
  return type.encode(type.fromObject(response)).finish()
}
