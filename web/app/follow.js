/**
 * Keeps a streaming answer in view in the conversation pane. Follows the answer as it grows, but
 * never past its question: once the answer is taller than the pane, the question stays at the top
 * and the reader scrolls on. Scrolling by hand (wheel, touch, keys) stops the following until the
 * next question.
 */

/** Keys that scroll the pane: pressing one means the reader took over. */
const SCROLL_KEYS = ['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' '];

/**
 * Follows turns in `log` (the scrolling conversation pane); listens there for scrolling by hand.
 * @param {HTMLElement} log
 * @returns {{follow: (turnElement: HTMLElement) => void, keepPinned: (change: () => void) => void}}
 *   follow: scroll to the turn now and keep it in view from now on;
 *   keepPinned: run a change to the page, then scroll to the followed turn
 * @example
 * const follower = createFollower(log);
 * follower.follow(turn.element);
 * follower.keepPinned(() => turn.appendToken('more text'));
 */
export function createFollower(log) {
  let following = null;
  function follow(turnElement) {
    following = turnElement;
    track();
  }
  function track() {
    if (!following?.isConnected) return;
    const bottom = log.scrollHeight - log.clientHeight;
    log.scrollTop = Math.max(0, Math.min(bottom, following.offsetTop - 8));
  }
  const stopFollowing = () => {
    following = null;
  };
  log.addEventListener('wheel', stopFollowing, { passive: true });
  log.addEventListener('touchmove', stopFollowing, { passive: true });
  log.addEventListener('keydown', (event) => {
    if (SCROLL_KEYS.includes(event.key)) stopFollowing();
  });
  /** Runs `change`, then keeps the followed answer in view. */
  function keepPinned(change) {
    change();
    track();
  }
  return { follow, keepPinned };
}
