export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'server-only') return nextResolve('server-only/empty.js', context);
  return nextResolve(specifier, context);
}
