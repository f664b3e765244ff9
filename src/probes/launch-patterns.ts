/** How each engine's server is started, as its command line shows it. */

// How each engine is launched; matched against the whole command line, words joined by spaces.
const LAUNCH_PATTERNS: Record<string, RegExp[]> = {
  sglang: [/(?:^|[\s/])sglang\.launch_server(?:\s|$)/, /(?:^|[\s/])sglang\s+serve(?:\s|$)/],
  vllm: [/(?:^|[\s/])vllm\s+serve(?:\s|$)/, /(?:^|[\s/])vllm\.entrypoints\.openai\.api_server(?:\s|$)/],
  llamacpp: [/(?:^|[\s/])llama-server(?:\s|$)/],
  trtllm: [/(?:^|[\s/])trtllm-serve(?:\s|$)/],
  tgi: [/(?:^|[\s/])text-generation-launcher(?:\s|$)/],
};

/** True when `cmdline` launches `engine`'s server (any engine's when `engine` is null). */
export function looksLikeLaunch(cmdline: string, engine: string | null): boolean {
  const patterns = engine === null ? Object.values(LAUNCH_PATTERNS).flat() : (LAUNCH_PATTERNS[engine] ?? []);
  return patterns.some((re) => re.test(cmdline));
}
