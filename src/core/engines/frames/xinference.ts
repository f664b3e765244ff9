// Hand-written from Xinference's source (xorbitsai/inference, xinference/core/): it has no engine-source catalog, and
// only the step that loads a model tells a phase. [file suffix, bare function, phase]; see frames/types.ts.
import type { FrameRule } from './types.js';

export const XINFERENCE_FRAMES: readonly FrameRule[] = [
  // ModelActor.load (core/model.py): `self._model_state = "loading"`, then `self._model.load()` in a thread
  // (_load_with_redirect): the model's own load, the step the worker reports as `Failed to load model {uid}`
  // (engines/generic.ts model_load_failed, read as weight loading)
  ['xinference/core/model.py', 'load', 'loading_weights'],
  ['xinference/core/model.py', '_load_with_redirect', 'loading_weights'],
  // ModelActor.wait_for_load: waits for a model whose load goes on in the background
  ['xinference/core/model.py', 'wait_for_load', 'loading_weights'],
  // WorkerActor.launch_builtin_model (core/worker.py): `await model_ref.load()` under the `Failed to load model` handler
  ['xinference/core/worker.py', 'launch_builtin_model', 'loading_weights'],
  ['xinference/core/worker.py', 'wait_for_load', 'loading_weights'],
];
