// @ts-check
/**
 * @module dashboard/key-dialog
 * The API key dialog: asks for a key when the service answers 401, changes or forgets it.
 */
import { $, dialogOf, inputOf, setConnection, setText, toast } from './dom.js'
import { app } from './state.js'

/** The service refused the request for want of a valid key: say so and ask for one. */
export function needKey(signIn = document.body.dataset.signIn === 'on') {
  // where the service offers sign-in, the page offers it instead of asking for a key
  if (signIn && !app.key) {
    setConnection('key', 'Sign in needed')
    $('signin-link').hidden = false
    return
  }
  setConnection('key', app.key ? 'Key refused' : 'Key needed')
  openKeyDialog(
    app.key
      ? 'The service refused the stored key. Enter a valid key.'
      : 'This service requires an API key. Enter an agent or admin key to read and edit, or a viewer key to read.'
  )
}

/**
 * Opens the dialog with the current key in it.
 * @param {string | null} reason - why it opens; null when the person asked
 */
export function openKeyDialog(reason) {
  const dialog = dialogOf('key-dialog')
  setText($('key-reason'), reason || 'Keys are sent as Authorization: Bearer <key>.')
  inputOf('key-input').value = app.key
  if (!dialog.open) dialog.showModal()
  inputOf('key-input').focus()
}

/**
 * Wires the header's API key button and the dialog's buttons.
 * @param {(key: string) => void} useKey - takes the key entered ('' when forgotten)
 */
export function wireKeyDialog(useKey) {
  const dialog = dialogOf('key-dialog')
  $('key-button').addEventListener('click', () => openKeyDialog(null))
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const key = inputOf('key-input').value.trim()
    dialog.close()
    useKey(key)
  })
  $('key-clear').addEventListener('click', () => {
    dialog.close()
    useKey('')
    toast('Key forgotten')
  })
  $('key-cancel').addEventListener('click', () => dialog.close())
}
