// @ts-check
/**
 * @module dashboard/api
 * Requests to the service's `/v1` API with the key.
 */
import { needKey } from './key-dialog.js'
import { app } from './state.js'

/** @typedef {import('./types.js').ProblemDetails} ProblemDetails */
/**
 * @template T
 * @typedef {import('./types.js').ApiResult<T>} ApiResult
 */

/**
 * Request headers with the key, when there is one.
 * @param {Record<string, string>} [extra]
 * @returns {Record<string, string>}
 */
export function headers(extra) {
  /** @type {Record<string, string>} */
  const result = Object.assign({}, extra || {})
  if (app.key) result.Authorization = 'Bearer ' + app.key
  return result
}

/**
 * A session's path in the API.
 * @param {string} id
 * @param {string} [suffix]
 */
export function sessionPath(id, suffix) {
  return '/v1/sessions/' + encodeURIComponent(id) + (suffix || '')
}

/**
 * A JSON request to the service, with the key; a 401 asks for a key.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [extra] - more headers
 * @returns {Promise<ApiResult<any>>}
 */
export async function api(method, path, body, extra) {
  const sent = headers(extra)
  // signed in, a write carries the sign-in's CSRF token (the browser adds the Origin)
  if (method !== 'GET' && app.person && !app.key) sent['X-CSRF-Token'] = app.person.csrf
  /** @type {RequestInit} */
  const init = { method, headers: sent, cache: 'no-store' }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    sent['Content-Type'] = 'application/json'
  }
  let res
  try {
    res = await fetch(path, init)
  } catch (e) {
    return { status: 0, ok: false, data: null, headers: new Headers() }
  }
  let data = null
  if ((res.headers.get('content-type') || '').indexOf('json') >= 0) {
    try {
      data = await res.json()
    } catch (e) {
      data = null
    }
  }
  if (res.status === 401) needKey()
  return { status: res.status, ok: res.ok, data, headers: res.headers }
}

/**
 * What went wrong, in a sentence.
 * @param {ApiResult<object>} res - a failed request; its body, if any, a problem
 */
export function problemText(res) {
  if (res.status === 0) return 'The service is unreachable.'
  const problem = /** @type {Partial<ProblemDetails> | null} */ (res.data)
  if (problem && problem.detail) return problem.detail
  return 'HTTP ' + res.status
}
