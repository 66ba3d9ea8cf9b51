/** The module hooks of resolve-here.mjs (they run on Node's hooks thread). */
const HERE = new URL('./package.json', import.meta.url).href

const isBare = (specifier) => !/^[./]/.test(specifier) && !/^[a-z][a-z0-9+.-]*:/i.test(specifier)

/** Node's resolve hook: the usual resolution first, then test/agents/'s for a bare specifier. */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context)
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !isBare(specifier)) throw error
    return nextResolve(specifier, { ...context, parentURL: HERE })
  }
}
