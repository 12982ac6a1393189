/**
 * The reader run by `/usr/bin/python3` (Debian's, which has pyatspi; the pyenv python on PATH lacks it) as the
 * desktop user on the screen's display and session bus. Embedded as a string so the built package needs no
 * data file. It takes one JSON request as argv[1] and prints one JSON answer:
 * - `windows`: the window manager's client windows (libX11 through ctypes; python3-xlib is not installed);
 * - `observe`: those, plus every showing AT-SPI window of non-browser applications and their actionable or
 *   readable nodes, bounded by depth, node count, visits and a time budget;
 * - `do_action` / `set_text` / `focus` / `resolve`: re-finds a node by pid + child-index path, checks that it is
 *   still the same role and name, and acts on it.
 */
export const ATSPI_SCRIPT = String.raw`import json, sys, time, ctypes

REQUEST = json.loads(sys.argv[1])

# ---- X11 windows through libX11 (python3-xlib is not installed; ctypes is) ----
class XWindowAttributes(ctypes.Structure):
    _fields_ = [('x', ctypes.c_int), ('y', ctypes.c_int), ('width', ctypes.c_int), ('height', ctypes.c_int),
                ('border_width', ctypes.c_int), ('depth', ctypes.c_int), ('visual', ctypes.c_void_p),
                ('root', ctypes.c_ulong), ('c_class', ctypes.c_int), ('bit_gravity', ctypes.c_int),
                ('win_gravity', ctypes.c_int), ('backing_store', ctypes.c_int), ('backing_planes', ctypes.c_ulong),
                ('backing_pixel', ctypes.c_ulong), ('save_under', ctypes.c_int), ('colormap', ctypes.c_ulong),
                ('map_installed', ctypes.c_int), ('map_state', ctypes.c_int), ('all_event_masks', ctypes.c_long),
                ('your_event_mask', ctypes.c_long), ('do_not_propagate_mask', ctypes.c_long),
                ('override_redirect', ctypes.c_int), ('screen', ctypes.c_void_p)]

def x_windows():
    xlib = ctypes.cdll.LoadLibrary('libX11.so.6')
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XDefaultRootWindow.restype = ctypes.c_ulong
    xlib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    xlib.XInternAtom.restype = ctypes.c_ulong
    xlib.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    xlib.XGetWindowProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_long, ctypes.c_long,
                                        ctypes.c_int, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                                        ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_ulong),
                                        ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_void_p)]
    xlib.XFree.argtypes = [ctypes.c_void_p]
    xlib.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(XWindowAttributes)]
    xlib.XTranslateCoordinates.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
                                           ctypes.POINTER(ctypes.c_ulong)]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    # Windows vanish between listing and reading them; the default handler would exit the process on BadWindow.
    handler_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    ignore = handler_type(lambda d, e: 0)
    xlib.XSetErrorHandler.argtypes = [handler_type]
    xlib.XSetErrorHandler(ignore)
    dpy = xlib.XOpenDisplay(None)
    if not dpy:
        raise RuntimeError('cannot open the X display')
    root = xlib.XDefaultRootWindow(dpy)
    atoms = {}
    def atom(name):
        if name not in atoms:
            atoms[name] = xlib.XInternAtom(dpy, name.encode(), 0)
        return atoms[name]
    def prop(win, name, kind):
        actual_type = ctypes.c_ulong(); fmt = ctypes.c_int(); count = ctypes.c_ulong(); after = ctypes.c_ulong()
        data = ctypes.c_void_p()
        status = xlib.XGetWindowProperty(dpy, win, atom(name), 0, 65536, 0, 0, ctypes.byref(actual_type),
                                         ctypes.byref(fmt), ctypes.byref(count), ctypes.byref(after), ctypes.byref(data))
        if status != 0 or not data.value:
            return None
        try:
            n = count.value
            if kind == 'longs':
                # Format-32 properties come back as C longs, whatever their width.
                return list((ctypes.c_ulong * n).from_address(data.value)) if fmt.value == 32 else None
            raw = ctypes.string_at(data.value, n) if fmt.value == 8 else b''
            return raw
        finally:
            xlib.XFree(data)
    stacking = prop(root, '_NET_CLIENT_LIST_STACKING', 'longs') or prop(root, '_NET_CLIENT_LIST', 'longs') or []
    active = (prop(root, '_NET_ACTIVE_WINDOW', 'longs') or [0])[0]
    hidden = atom('_NET_WM_STATE_HIDDEN')
    type_names = {}
    for t in ('NORMAL', 'DIALOG', 'DESKTOP', 'DOCK', 'TOOLBAR', 'MENU', 'UTILITY', 'SPLASH', 'NOTIFICATION'):
        type_names[atom('_NET_WM_WINDOW_TYPE_' + t)] = t.lower()
    result = []
    for stack_index, win in enumerate(stacking):
        attrs = XWindowAttributes()
        if xlib.XGetWindowAttributes(dpy, win, ctypes.byref(attrs)) == 0:
            continue
        rx = ctypes.c_int(); ry = ctypes.c_int(); child = ctypes.c_ulong()
        xlib.XTranslateCoordinates(dpy, win, root, 0, 0, ctypes.byref(rx), ctypes.byref(ry), ctypes.byref(child))
        title = prop(win, '_NET_WM_NAME', 'bytes') or prop(win, 'WM_NAME', 'bytes') or b''
        wm_class = (prop(win, 'WM_CLASS', 'bytes') or b'').split(b'\0')
        pid = (prop(win, '_NET_WM_PID', 'longs') or [0])[0]
        frame = prop(win, '_NET_FRAME_EXTENTS', 'longs') or [0, 0, 0, 0]
        states = prop(win, '_NET_WM_STATE', 'longs') or []
        types = prop(win, '_NET_WM_WINDOW_TYPE', 'longs') or []
        result.append({
            'xid': int(win), 'stack': stack_index, 'title': title.decode('utf-8', 'replace'),
            'instance': wm_class[0].decode('utf-8', 'replace') if len(wm_class) > 0 else '',
            'wmClass': wm_class[1].decode('utf-8', 'replace') if len(wm_class) > 1 else '',
            'pid': int(pid) or None, 'x': rx.value, 'y': ry.value, 'width': attrs.width, 'height': attrs.height,
            'frame': [int(v) for v in frame[:4]], 'viewable': attrs.map_state == 2,
            'minimized': hidden in states, 'active': int(win) == int(active),
            'type': next((type_names[t] for t in types if t in type_names), 'normal'),
        })
    xlib.XCloseDisplay(dpy)
    return result

# ---- AT-SPI ----
WANTED_ROLES = {
    'push button', 'toggle button', 'check box', 'radio button', 'text', 'password text', 'entry', 'combo box',
    'menu', 'menu item', 'check menu item', 'radio menu item', 'list item', 'table cell', 'tree item', 'label',
    'link', 'page tab', 'spin button', 'slider', 'heading', 'paragraph', 'static', 'icon', 'image', 'toggle',
    'table column header', 'table row header', 'column header', 'row header', 'tool bar item', 'split button',
    'scroll bar', 'date editor', 'alert', 'notification', 'editbar', 'terminal', 'canvas', 'drawing area',
    'document text', 'caption', 'description value',
}
ACTIONABLE_STATES = ('focused', 'enabled', 'sensitive', 'checked', 'editable', 'selected', 'expanded',
                     'showing', 'visible', 'focusable', 'pressed', 'indeterminate', 'multi line')

def load_atspi():
    import pyatspi
    try:
        import gi
        gi.require_version('Atspi', '2.0')
        from gi.repository import Atspi
        # An application that hangs (or is frozen) must not hold the reader for D-Bus's default 25 s.
        Atspi.set_timeout(int(REQUEST.get('callTimeoutMs', 1500)), int(REQUEST.get('callTimeoutMs', 1500)))
    except Exception:
        pass
    return pyatspi

def states_of(pyatspi, acc):
    try:
        return [pyatspi.stateToString(s) for s in acc.getState().getStates()]
    except Exception:
        return []

def extents_of(pyatspi, acc):
    try:
        e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        return [e.x, e.y, e.width, e.height]
    except Exception:
        return None

def actions_of(acc):
    try:
        a = acc.queryAction()
        return [a.getName(i) for i in range(a.nActions)]
    except Exception:
        return []

def text_of(acc, limit):
    try:
        t = acc.queryText()
        return t.getText(0, min(t.characterCount, limit))
    except Exception:
        return None

def app_pid(app):
    try:
        return int(app.get_process_id())
    except Exception:
        return None

def observe():
    pyatspi = load_atspi()
    deadline = time.time() + REQUEST.get('budgetMs', 3000) / 1000.0
    max_nodes = REQUEST.get('maxNodes', 200)
    max_depth = REQUEST.get('maxDepth', 25)
    max_visits = REQUEST.get('maxVisits', 5000)
    text_limit = REQUEST.get('textLimit', 200)
    skip_pids = set(REQUEST.get('skipPids', []))
    only_pid = REQUEST.get('onlyPid')
    desktop = pyatspi.Registry.getDesktop(0)
    windows = []
    nodes = []
    truncated = False
    visits = 0
    for app in desktop:
        if app is None:
            continue
        pid = app_pid(app)
        if pid is None or pid in skip_pids or (only_pid is not None and pid != only_pid):
            continue
        for wi, win in enumerate(app):
            if win is None:
                continue
            wstates = states_of(pyatspi, win)
            wext = extents_of(pyatspi, win)
            if 'showing' not in wstates or wext is None or wext[2] <= 1 or wext[3] <= 1 or wext[0] <= -1000:
                continue
            window_index = len(windows)
            windows.append({'app': app.name, 'pid': pid, 'name': win.name or '', 'role': win.getRoleName(),
                            'extents': wext, 'active': 'active' in wstates})
            stack = [(win, [wi], 0)]
            while stack:
                if time.time() > deadline or visits >= max_visits:
                    truncated = True
                    break
                acc, path, depth = stack.pop()
                visits += 1
                if depth > 0:
                    role = acc.getRoleName()
                    st = states_of(pyatspi, acc)
                    if 'showing' not in st or 'visible' not in st:
                        continue
                    ext = extents_of(pyatspi, acc)
                    if role in WANTED_ROLES and ext is not None and ext[2] > 0 and ext[3] > 0:
                        name = acc.name or ''
                        text = None
                        if 'editable' in st and role != 'password text':
                            text = text_of(acc, text_limit)
                        if name or text or role not in ('label', 'static', 'icon', 'image', 'paragraph', 'heading'):
                            if len(nodes) >= max_nodes:
                                truncated = True
                                break
                            nodes.append({'pid': pid, 'path': path, 'role': role, 'name': name[:text_limit],
                                          'text': text, 'states': [s for s in st if s in ACTIONABLE_STATES],
                                          'extents': ext, 'actions': actions_of(acc), 'window': window_index})
                if depth >= max_depth:
                    continue
                try:
                    count = acc.childCount
                except Exception:
                    continue
                # Pushed in reverse so that the walk (and the numbering) follows reading order.
                for ci in range(min(count, 500) - 1, -1, -1):
                    try:
                        child = acc.getChildAtIndex(ci)
                    except Exception:
                        child = None
                    if child is not None:
                        stack.append((child, path + [ci], depth + 1))
            if truncated:
                break
        if truncated:
            break
    return {'ok': True, 'windows': windows, 'nodes': nodes, 'truncated': truncated, 'visits': visits}

def resolve(pyatspi, target):
    desktop = pyatspi.Registry.getDesktop(0)
    app = None
    for candidate in desktop:
        if candidate is not None and app_pid(candidate) == target['pid']:
            app = candidate
            break
    if app is None:
        return None, 'the application is gone'
    acc = app
    for index in target['path']:
        try:
            acc = acc.getChildAtIndex(index) if index < acc.childCount else None
        except Exception:
            acc = None
        if acc is None:
            return None, 'the window has changed'
    if acc.getRoleName() != target['role'] or (acc.name or '')[:len(target['name']) or None] != target['name']:
        return None, 'the element at that place is now a %s "%s"' % (acc.getRoleName(), acc.name or '')
    if 'showing' not in states_of(pyatspi, acc):
        return None, 'the element is no longer showing'
    return acc, None

def act():
    pyatspi = load_atspi()
    acc, problem = resolve(pyatspi, REQUEST['target'])
    if acc is None:
        return {'ok': False, 'error': 'stale', 'message': problem}
    op = REQUEST['op']
    current = {'extents': extents_of(pyatspi, acc), 'states': states_of(pyatspi, acc), 'actions': actions_of(acc)}
    if op == 'resolve':
        return dict(ok=True, **current)
    if op == 'do_action':
        names = actions_of(acc)
        for wanted in REQUEST['actions']:
            if wanted in names:
                if not acc.queryAction().doAction(names.index(wanted)):
                    return {'ok': False, 'error': 'refused', 'message': 'the application refused "%s"' % wanted}
                return {'ok': True, 'action': wanted}
        return {'ok': False, 'error': 'no_action', 'message': 'no default action', 'extents': current['extents']}
    if op == 'set_text':
        try:
            editable = acc.queryEditableText()
        except Exception:
            return {'ok': False, 'error': 'not_editable', 'message': 'no editable text interface',
                    'extents': current['extents']}
        try:
            acc.queryComponent().grabFocus()
        except Exception:
            pass
        if REQUEST.get('append'):
            length = acc.queryText().characterCount
            done = editable.insertText(length, REQUEST['text'], len(REQUEST['text']))
        else:
            done = editable.setTextContents(REQUEST['text'])
        if not done:
            return {'ok': False, 'error': 'not_editable', 'message': 'the application refused the text',
                    'extents': current['extents']}
        return {'ok': True, 'text': text_of(acc, 2000)}
    if op == 'focus':
        try:
            return {'ok': bool(acc.queryComponent().grabFocus())}
        except Exception:
            return {'ok': False, 'error': 'refused', 'message': 'cannot focus'}
    return {'ok': False, 'error': 'bad_request', 'message': 'unknown op ' + op}

def main():
    op = REQUEST['op']
    if op == 'windows':
        out = {'ok': True, 'x': x_windows()}
    elif op == 'observe':
        xs = x_windows()
        browser = tuple(c.lower() for c in REQUEST.get('browserClasses', []))
        # The browser's own tree is skipped: web content is observed through CDP, far faster and richer.
        REQUEST['skipPids'] = [w['pid'] for w in xs if w['pid'] and browser and
                               (w['wmClass'].lower().startswith(browser) or w['instance'].lower().startswith(browser))]
        out = observe()
        out['x'] = xs
    else:
        out = act()
    sys.stdout.write(json.dumps(out))

try:
    main()
except Exception as error:
    sys.stdout.write(json.dumps({'ok': False, 'error': 'failed', 'message': '%s: %s' % (type(error).__name__, error)}))
`;
