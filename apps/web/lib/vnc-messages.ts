/**
 * The postMessage protocol between the computer panel and public/vnc.html, the standalone page (in an
 * iframe, same origin) that runs noVNC. vnc.html is plain JavaScript and cannot import this file: the two
 * are kept in step by hand, so change both together. Both sides check `event.origin === location.origin`
 * and that every message carries `source: 'lazyboy-vnc'`.
 *
 * Panel → vnc.html
 * - connect { url }          open the RFB websocket (ws(s)://<host>/view/<ticket>?c=<connection id>); a
 *                            connection starts view-only, and one already open is dropped without a word
 * - view-only { viewOnly }   let noVNC send keyboard and pointer input, or stop it (no reconnect)
 * - paste { text }           type text into the desktop's focused field (Latin-1 text also goes on its clipboard)
 * - typed { id }             the `type` request `id` is done (typed or failed): later typing may go on
 * - keyboard                 focus a hidden text field whose typing goes to the desktop, so a phone opens its
 *                            on-screen keyboard (noVNC's canvas never does); nothing gets through while view-only
 * - disconnect               close the connection (not reported back: the panel asked)
 *
 * vnc.html → panel
 * - ready                    the page and noVNC are loaded: `connect` may be sent
 * - connected                the RFB handshake is done
 * - frame                    once per connection, when the screen first shows something other than black
 * - disconnected { clean }   the connection ended on its own (the desktop went away, the network dropped)
 * - type { id, text }        type this (not Latin-1) for the person through the API, then answer `typed`:
 *                            x11vnc cannot type more than a handful of characters its keyboard lacks
 */

const VNC_SOURCE = 'lazyboy-vnc';

export type PanelToVnc =
  | { type: 'connect'; url: string }
  | { type: 'view-only'; viewOnly: boolean }
  | { type: 'paste'; text: string }
  | { type: 'keyboard' }
  | { type: 'typed'; id: number }
  | { type: 'disconnect' };

export type VncToPanel =
  | { type: 'ready' }
  | { type: 'connected' }
  | { type: 'frame' }
  | { type: 'disconnected'; clean: boolean }
  | { type: 'type'; id: number; text: string };

/** A message as it travels: tagged, so other postMessage traffic on the window is never mistaken for ours. */
export type Tagged<M> = M & { source: typeof VNC_SOURCE };

export function tag<M extends PanelToVnc>(message: M): Tagged<M> {
  return { ...message, source: VNC_SOURCE };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The message vnc.html sent, or null for anything else (another script's messages, a malformed one). */
export function parseVncMessage(data: unknown): VncToPanel | null {
  if (!isRecord(data) || data.source !== VNC_SOURCE) return null;
  switch (data.type) {
    case 'ready':
    case 'connected':
    case 'frame':
      return { type: data.type };
    case 'disconnected':
      return { type: 'disconnected', clean: data.clean === true };
    case 'type':
      return typeof data.text === 'string' && Number.isSafeInteger(data.id)
        ? { type: 'type', id: data.id as number, text: data.text }
        : null;
    default:
      return null;
  }
}
