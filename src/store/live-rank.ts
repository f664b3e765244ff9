/**
 * A kept live verdict is never traded down: a final one (the server's process seen gone, a clean exit: LiveMark's
 * `final`) was seen with more evidence than a later look that only reads the log, or finds no process, can have.
 * Another final mark replaces it; `stalled`, a dead port or nothing does not. (The log moving on, a new phase or
 * outcome, still clears it: that is the upsert's rule, `MOVED`.)
 */

/**
 * The WHERE clause of setLive: its last parameter is 1 when the new mark is final, else 0. Written for both
 * SQLite and Postgres (the mark is JSON text in both).
 */
export const KEEPS_FINAL_LIVE = `(live IS NULL OR live NOT LIKE '%"final":true%' OR ? = 1)`;
