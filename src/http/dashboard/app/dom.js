// @ts-check
/**
 * @module dashboard/dom
 * Finding and building elements (strings only ever become text), the connection status and the
 * toast.
 */

/**
 * The page's element with this id (the page has every id the script names).
 * @param {string} id
 * @returns {HTMLElement}
 */
export function $(id) {
  const node = document.getElementById(id)
  if (!node) throw new Error('the page has no #' + id)
  return node
}

/**
 * The page's input with this id.
 * @param {string} id
 */
export function inputOf(id) {
  return /** @type {HTMLInputElement} */ ($(id))
}

/**
 * The page's dialog with this id.
 * @param {string} id
 */
export function dialogOf(id) {
  return /** @type {HTMLDialogElement} */ ($(id))
}

/**
 * Builds an element; strings become text nodes, never markup.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number | boolean | null | undefined> | null} [props]
 * @param {(Node | string | null | undefined)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props, children) {
  const node = document.createElement(tag)
  if (props) {
    for (const name in props) {
      const value = props[name]
      if (value === null || value === undefined || value === false) continue
      if (name === 'class') node.className = String(value)
      else if (name === 'text') node.textContent = String(value)
      else node.setAttribute(name, value === true ? '' : String(value))
    }
  }
  if (children) {
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child)
    }
  }
  return node
}

/**
 * Sets a node's text, leaving it alone when it already reads so.
 * @param {Node} node
 * @param {string} text
 */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text
}

let toastTimer = 0

/**
 * Shows a short message for 5 s.
 * @param {string} text
 */
export function toast(text) {
  const node = $('toast')
  node.textContent = text
  clearTimeout(toastTimer)
  toastTimer = setTimeout(() => {
    node.textContent = ''
  }, 5000)
}

/**
 * The header's connection status.
 * @param {string} kind - its look: connecting, live, reconnecting, key, error
 * @param {string} text
 */
export function setConnection(kind, text) {
  const node = $('conn')
  node.dataset.conn = kind
  setText($('conn-text'), text)
}
