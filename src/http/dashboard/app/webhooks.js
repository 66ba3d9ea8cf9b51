// @ts-check
/**
 * @module dashboard/webhooks
 * The tenant's webhooks and each one's recent deliveries, for an admin key (or open access): a
 * panel that loads when it opens and on its Refresh button, with a "Send test" per webhook. Other
 * keys never see it, and the page sends them no webhook request (each would be a 403). No secret
 * is ever shown: the service sends none after a webhook's creation.
 */
import { api, problemText } from './api.js'
import { $, el, setText, toast } from './dom.js'
import { absoluteTime, relativeTime, untilTime } from './format.js'
import { canManageWebhooks } from './role.js'

/** @typedef {import('./types.js').Webhook} Webhook */
/** @typedef {import('./types.js').WebhookList} WebhookList */
/** @typedef {import('./types.js').WebhookDelivery} WebhookDelivery */
/** @typedef {import('./types.js').WebhookDeliveries} WebhookDeliveries */
/** @typedef {import('./types.js').TestDelivery} TestDelivery */
/**
 * @template T
 * @typedef {import('./types.js').ApiResult<T>} ApiResult
 */

/** How many of each webhook's deliveries the panel shows, newest first. */
const DELIVERIES_SHOWN = 10

/** @type {Record<WebhookDelivery['status'], string>} */
const DELIVERY_STATUS_LABEL = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
}

// each load counts up: an answer to an older load (another key, an earlier click) is dropped
let loads = 0

/**
 * A webhook's path in the API.
 * @param {string} id
 * @param {string} [suffix]
 */
function webhookPath(id, suffix) {
  return '/v1/webhooks/' + encodeURIComponent(id) + (suffix || '')
}

/**
 * The panel's status line ('' hides it).
 * @param {string} text
 * @param {boolean} [error]
 */
function setStatus(text, error) {
  const node = $('webhooks-status')
  node.hidden = !text
  node.classList.toggle('error', !!error)
  setText(node, text)
}

/**
 * A filter as one line: each field given, `name=value`; every session when none is.
 * @param {Webhook['filter']} filter
 */
export function filterText(filter) {
  /** @type {string[]} */
  const parts = []
  for (const field of /** @type {const} */ (['source', 'user', 'repo', 'state'])) {
    const value = filter[field]
    if (value) parts.push(field + '=' + value)
  }
  const labels = filter.labels || {}
  for (const name of Object.keys(labels).sort()) parts.push('label ' + name + '=' + labels[name])
  return parts.length > 0 ? parts.join(' · ') : 'every session'
}

/**
 * A term and its description, for a webhook's list of settings.
 * @param {string} term
 * @param {string} text
 * @param {string} field - the data-field the tests and styles find it by
 */
function setting(term, text, field) {
  return [el('dt', { text: term }), el('dd', { text, 'data-field': field })]
}

/**
 * One delivery: its status, type, session, attempts and the last attempt's outcome.
 * @param {WebhookDelivery} d
 */
function deliveryItem(d) {
  /** @type {string[]} */
  const facts = [d.attempts === 1 ? '1 attempt' : d.attempts + ' attempts']
  if (d.last_status !== null) facts.push('HTTP ' + d.last_status)
  if (d.status === 'pending' && d.next_attempt_at)
    facts.push('next attempt ' + untilTime(d.next_attempt_at))
  return el('li', { class: 'delivery', 'data-delivery-id': d.id, 'data-status': d.status }, [
    el('div', { class: 'delivery-head' }, [
      el('span', {
        class: 'badge delivery-status delivery-' + d.status,
        text: DELIVERY_STATUS_LABEL[d.status] || d.status,
      }),
      el('code', { class: 'delivery-type', text: d.type }),
      d.session_id
        ? el('a', {
            class: 'sid delivery-session',
            href: '#session=' + encodeURIComponent(d.session_id),
            text: d.session_id,
          })
        : null,
      el('time', {
        class: 'item-sub delivery-time',
        datetime: d.created_at,
        title: absoluteTime(d.created_at),
        text: relativeTime(d.created_at),
      }),
    ]),
    el('div', { class: 'item-sub delivery-facts', text: facts.join(' · ') }),
    d.last_error ? el('div', { class: 'delivery-error', text: d.last_error }) : null,
  ])
}

/**
 * One webhook's card: its settings (never its secret), its recent deliveries, "Send test".
 * @param {Webhook} hook
 * @param {ApiResult<WebhookDeliveries>} deliveries
 */
function webhookCard(hook, deliveries) {
  /** @type {Node} */
  let log
  if (!deliveries.ok || !deliveries.data) {
    log = el('p', { class: 'item-sub error', text: 'Deliveries: ' + problemText(deliveries) })
  } else if (deliveries.data.deliveries.length === 0) {
    log = el('p', { class: 'item-sub deliveries-empty', text: 'No deliveries yet.' })
  } else {
    log = el('ol', { class: 'deliveries' }, deliveries.data.deliveries.map(deliveryItem))
  }
  return el('li', { class: 'webhook', 'data-webhook-id': hook.id }, [
    el('div', { class: 'webhook-head' }, [
      el('span', { class: 'webhook-url', text: hook.url, title: hook.url }),
      el('button', {
        type: 'button',
        class: 'btn small webhook-test',
        'data-webhook-id': hook.id,
        text: 'Send test',
      }),
    ]),
    hook.description ? el('div', { class: 'webhook-description', text: hook.description }) : null,
    el('dl', { class: 'meta webhook-meta' }, [
      ...setting('Events', hook.events.join(', '), 'events'),
      ...setting('Format', hook.format, 'format'),
      ...setting(
        'Delay',
        hook.delay_seconds > 0 ? hook.delay_seconds + ' s before session.waiting' : 'none',
        'delay'
      ),
      ...setting('Filter', filterText(hook.filter), 'filter'),
      ...setting('Created', absoluteTime(hook.created_at), 'created'),
    ]),
    el('h3', { class: 'deliveries-title', text: 'Recent deliveries' }),
    log,
  ])
}

/** Loads the webhooks and each one's recent deliveries, and shows them. */
export async function loadWebhooks() {
  if (!canManageWebhooks()) return
  const load = ++loads
  const refresh = /** @type {HTMLButtonElement} */ ($('webhooks-refresh'))
  refresh.disabled = true
  setStatus('Loading…')
  try {
    /** @type {ApiResult<WebhookList>} */
    const res = await api('GET', '/v1/webhooks')
    if (load !== loads) return
    if (!res.ok || !res.data) {
      setStatus('Webhooks: ' + problemText(res), true)
      return
    }
    const hooks = res.data.webhooks
    /** @type {ApiResult<WebhookDeliveries>[]} */
    const logs = await Promise.all(
      hooks.map((hook) => api('GET', webhookPath(hook.id, '/deliveries?limit=' + DELIVERIES_SHOWN)))
    )
    if (load !== loads) return
    $('webhooks-list').replaceChildren(...hooks.map((hook, i) => webhookCard(hook, logs[i])))
    setText($('count-webhooks'), String(hooks.length))
    setStatus(
      hooks.length === 0
        ? 'No webhooks. Create one with POST /v1/webhooks (docs/alerts.md).'
        : 'Updated ' + new Date().toLocaleTimeString()
    )
  } finally {
    if (load === loads) refresh.disabled = false
  }
}

/**
 * Sends a `webhook.test` delivery now, then shows the log again.
 * @param {string} id
 * @param {HTMLButtonElement} button
 */
async function sendTest(id, button) {
  button.disabled = true
  /** @type {ApiResult<TestDelivery>} */
  const res = await api('POST', webhookPath(id, '/test'))
  button.disabled = false
  if (res.status === 202) {
    toast('Test delivery queued')
    await loadWebhooks()
  } else {
    toast('Test not sent: ' + problemText(res))
  }
}

/**
 * Shows the panel to a key that may manage webhooks (loading it when it is open), and hides and
 * empties it for any other, without asking the service anything.
 */
export function renderWebhooks() {
  const allowed = canManageWebhooks()
  $('webhooks').hidden = !allowed
  if (!allowed) {
    loads++
    $('webhooks-list').replaceChildren()
    setText($('count-webhooks'), '')
    setStatus('')
    return
  }
  if (/** @type {HTMLDetailsElement} */ ($('webhooks-panel')).open) loadWebhooks()
}

/** Opening the panel and its Refresh button load it; each card's button sends a test. */
export function wireWebhooks() {
  $('webhooks-panel').addEventListener('toggle', () => {
    if (/** @type {HTMLDetailsElement} */ ($('webhooks-panel')).open) loadWebhooks()
  })
  $('webhooks-refresh').addEventListener('click', () => loadWebhooks())
  $('webhooks-list').addEventListener('click', (event) => {
    const target = event.target
    if (!(target instanceof Element)) return
    const button = target.closest('button.webhook-test')
    if (button instanceof HTMLButtonElement && button.dataset.webhookId)
      sendTest(button.dataset.webhookId, button)
  })
}
