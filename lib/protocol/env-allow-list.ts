/**
 * The only environment variables of a watched process the agent may read and ship. Anything else in a
 * process's environment (credentials, tokens, paths) never leaves the host; the server rejects other keys too.
 */
export const ENV_ALLOW_LIST = [
  'OMP_NUM_THREADS',
  'OMP_DYNAMIC',
  'OMP_PROC_BIND',
  'OMP_PLACES',
  'OMP_WAIT_POLICY',
  'OMP_THREAD_LIMIT',
  'GOMP_SPINCOUNT',
  'GOMP_CPU_AFFINITY',
  'MKL_NUM_THREADS',
  'MKL_DYNAMIC',
  'MKL_ENABLE_INSTRUCTIONS',
  'MKL_THREADING_LAYER',
  'OPENBLAS_NUM_THREADS',
  'GOTO_NUM_THREADS',
  'OPENBLAS_CORETYPE',
  'BLIS_NUM_THREADS',
  'VECLIB_MAXIMUM_THREADS',
  'NUMEXPR_NUM_THREADS',
  'KMP_BLOCKTIME',
  'KMP_AFFINITY',
  'KMP_LIBRARY',
  'KMP_HW_SUBSET',
  'KMP_SETTINGS',
  'TF_NUM_INTRAOP_THREADS',
  'TF_NUM_INTEROP_THREADS',
  'TF_ENABLE_ONEDNN_OPTS',
  'TF_CPP_MIN_LOG_LEVEL',
  'DNNL_MAX_CPU_ISA',
  'ONEDNN_MAX_CPU_ISA',
  'DNNL_VERBOSE',
  'ORT_NUM_THREADS',
  'TORCH_NUM_THREADS',
  'GOMAXPROCS',
  'UV_THREADPOOL_SIZE',
  'WEB_CONCURRENCY',
] as const;

export type AllowedEnvVar = (typeof ENV_ALLOW_LIST)[number];

const allowed = new Set<string>(ENV_ALLOW_LIST);
export function isAllowedEnvVar(name: string): name is AllowedEnvVar {
  return allowed.has(name);
}
