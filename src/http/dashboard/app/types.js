// @ts-check
/**
 * @module dashboard/types
 * The types the modules share; the API's come from the client generated from the OpenAPI
 * document (src/client/schema.ts). Nothing runs here.
 */

/** @typedef {import('../../../client/schema.js').components['schemas']} Schemas */
/** @typedef {Schemas['SessionSummary']} SessionSummary */
/** @typedef {Schemas['SessionView']} SessionView */
/** @typedef {Schemas['Item']} Item */
/** @typedef {Schemas['Progress']} Progress */
/** @typedef {Schemas['HistoryEntry']} HistoryEntry */
/** @typedef {Schemas['Whoami']} Whoami */
/** @typedef {Schemas['ProblemDetails']} ProblemDetails */
/** @typedef {Schemas['Webhook']} Webhook */
/** @typedef {Schemas['WebhookList']} WebhookList */
/** @typedef {Schemas['WebhookDelivery']} WebhookDelivery */
/** @typedef {Schemas['WebhookDeliveries']} WebhookDeliveries */
/** @typedef {Schemas['TestDelivery']} TestDelivery */
/** @typedef {'admin' | 'agent' | 'viewer' | 'open'} Role */
/** @typedef {SessionSummary | SessionView} Shown a row's session: a summary, or the open session's view */
/**
 * @typedef {object} SessionRecord
 * @property {Shown} s
 * @property {HTMLTableRowElement | null} row
 * @property {string} kind
 * @property {number} depth - 0 at the top level; a subagent listed under its main session: 1
 */
/**
 * @template T
 * @typedef {{ status: number, ok: boolean, data: T | null, headers: Headers }} ApiResult
 */
/** @typedef {{ event: string, data: string, id: string | null }} SseMessage */
/**
 * @typedef {object} StreamHandlers
 * @property {(status: string) => void} onStatus
 * @property {(event: string, data: any, id: string | null) => void} onEvent
 * @property {(status: number, data: ProblemDetails | null) => boolean | void} [onFail]
 * @property {() => number | null} [resumeFrom]
 */
/** @typedef {{ lastId: () => string | null, close: () => void }} Stream */
/**
 * @typedef {{ item: Item | null, id?: string, content: string, status: Item['status'] }} EditRow
 * @typedef {{ base: number, changedTo: number | null, saving: boolean, items: EditRow[] }} Edit
 */

export {}
