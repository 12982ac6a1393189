import { auth } from './endpoints';
import { closeRealtime } from './realtime';

/** Ends the session and leaves for the login page with a full load: nothing of this session's state survives. */
export async function signOut(): Promise<void> {
  try {
    await auth.logout();
  } catch {
    // Signed out or not, the person asked to leave: the login page is where they go.
  }
  closeRealtime();
  window.location.assign('/login');
}
