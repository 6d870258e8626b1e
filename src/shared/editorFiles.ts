/**
 * Files editors and operating systems leave beside the ones people write (swap and backup files,
 * lock files, .DS_Store): the skill reload ignores their changes, and a skill's web/ folder may
 * hold them without being refused.
 */

/**
 * Whether a file name (no folder) is an editor's or the system's, not the author's.
 * @example
 * isEditorFile('.board.js.swp'); // true
 * isEditorFile('board.js~');     // true
 * isEditorFile('board.js');      // false
 */
export function isEditorFile(name: string): boolean {
  return /(^\.#|~$|\.sw[a-p]$|^4913$|\.tmp$)/.test(name) || name === '.DS_Store';
}
