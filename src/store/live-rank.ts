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

/**
 * A launch's port as a bench matches it: the logged one, else its engine's default (server-identity.ts's
 * ENGINE_DEFAULT_PORTS; vLLM prints only non-default arguments). Never "unknown matches any": a launch whose port
 * and engine are both unknown serves on no port a bench can name.
 */
export const LAUNCH_PORT_SQL = `coalesce(port, CASE engine WHEN 'sglang' THEN 30000 WHEN 'vllm' THEN 8000 WHEN 'llamacpp' THEN 8080 WHEN 'tgi' THEN 3000 WHEN 'trtllm' THEN 8000 END)`;
