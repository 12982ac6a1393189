/**
 * Follows the client-to-server half of an RFB (VNC) connection message by message, so that the web
 * server can drop a viewer's keyboard, pointer and clipboard input while that viewer only watches, and
 * let it through once they hold control: the same connection switches both ways, the picture never
 * stops. A stream it cannot follow (a security type or message it does not know) is refused rather
 * than passed on, since its input could not be told apart.
 */
export class RfbProtocolError extends Error {
  override readonly name = 'RfbProtocolError';
}

type Phase = 'version' | 'security' | 'vnc-auth' | 'client-init' | 'messages';

/** A pasted text beyond this is refused: the filter holds a message whole before passing it on. */
const MAX_CLIPBOARD_BYTES = 1024 * 1024;

/** Security types this filter can follow: None, and VNC authentication (a 16-byte answer). */
const SECURITY_NONE = 1;
const SECURITY_VNC_AUTH = 2;

/** Length of the client message at the start of `buf`, or null when more bytes are needed to tell. */
function messageLength(buf: Buffer): number | null {
  const type = buf[0]!;
  const need = (n: number) => (buf.length >= n ? true : null);
  switch (type) {
    case 0: // SetPixelFormat
      return 20;
    case 2: // SetEncodings
      return need(4) && 4 + 4 * buf.readUInt16BE(2);
    case 3: // FramebufferUpdateRequest
      return 10;
    case 4: // KeyEvent
      return 8;
    case 5: // PointerEvent
      return 6;
    case 6: {
      // ClientCutText; a negative length is the extended-clipboard form, |length| bytes follow.
      if (!need(8)) return null;
      const length = Math.abs(buf.readInt32BE(4));
      if (length > MAX_CLIPBOARD_BYTES)
        throw new RfbProtocolError(`a clipboard of ${length} bytes is more than this proxy carries`);
      return 8 + length;
    }
    case 150: // EnableContinuousUpdates
      return 10;
    case 248: // ClientFence
      return need(9) && 9 + buf[8]!;
    case 250: // xvp (shut down, reboot, reset the machine)
      return 4;
    case 251: // SetDesktopSize
      return need(8) && 8 + 16 * buf[6]!;
    case 255: // QEMU: only the extended key event is known
      if (!need(2)) return null;
      if (buf[1] === 0) return 12;
      throw new RfbProtocolError(`unknown QEMU client message ${buf[1]}`);
    default:
      throw new RfbProtocolError(`unknown client message type ${type}`);
  }
}

/** Messages that act on the desktop: keys, pointer, clipboard, power and resizing. */
const INPUT_TYPES: ReadonlySet<number> = new Set([4, 5, 6, 250, 251, 255]);

export class RfbInputFilter {
  /** Whether this viewer's input reaches the desktop now. */
  allowInput = false;
  private phase: Phase = 'version';
  private pending: Buffer = Buffer.alloc(0);
  /** Input messages dropped so far (tests read it). */
  dropped = 0;

  /** The bytes of `chunk` (with any held back before) to send on: whole messages, input dropped if not allowed. */
  push(chunk: Buffer): Buffer {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      const length = this.nextLength();
      if (length === null || this.pending.length < length) break;
      const piece = this.pending.subarray(0, length);
      this.pending = this.pending.subarray(length);
      if (this.keep(piece)) out.push(piece);
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  private nextLength(): number | null {
    if (this.pending.length === 0) return null;
    switch (this.phase) {
      case 'version':
        return 12;
      case 'security':
        return 1;
      case 'vnc-auth':
        return 16;
      case 'client-init':
        return 1;
      case 'messages':
        return messageLength(this.pending);
    }
  }

  /** Advances the handshake; says whether the piece is passed on. */
  private keep(piece: Buffer): boolean {
    switch (this.phase) {
      case 'version': {
        const match = /^RFB 003\.(\d{3})\n$/.exec(piece.toString('latin1'));
        if (!match) throw new RfbProtocolError('not an RFB client');
        // RFB 3.3 lets the server impose a security type whose answer this filter could not size.
        if (Number(match[1]) < 7) throw new RfbProtocolError('RFB 3.3 clients are not supported here');
        this.phase = 'security';
        return true;
      }
      case 'security': {
        const type = piece[0]!;
        if (type === SECURITY_NONE) this.phase = 'client-init';
        else if (type === SECURITY_VNC_AUTH) this.phase = 'vnc-auth';
        else throw new RfbProtocolError(`security type ${type} is not supported here`);
        return true;
      }
      case 'vnc-auth':
        this.phase = 'client-init';
        return true;
      case 'client-init':
        this.phase = 'messages';
        return true;
      case 'messages': {
        if (this.allowInput || !INPUT_TYPES.has(piece[0]!)) return true;
        this.dropped += 1;
        return false;
      }
    }
  }
}
