/**
 * A custom method's view of the store (vocabulary/custom-method.ts's StoreView): the store's own
 * resource calls, each refused unless it names one of the kinds the method declares it touches.
 */
import type { Store, ResourceStore } from '../store/types.ts';
import type { StoreView } from '../vocabulary/custom-method.ts';

export function storeView(store: Pick<Store, 'resources' | 'transaction'>, kinds: readonly string[]): StoreView {
  const allowed = new Set(kinds);
  /** `run` when every kind is declared; else a refusal, before any query. */
  const within = <T>(named: readonly string[], run: () => Promise<T>): Promise<T> => {
    const other = named.find((kind) => !allowed.has(kind));
    return other === undefined ? run()
      : Promise.reject(new Error(`a custom method touched the store's "${other}" rows, which it does not declare (CustomMethod.touches)`));
  };
  const scoped = (resources: ResourceStore): ResourceStore => ({
    insert: (resource) => within([resource.kind], () => resources.insert(resource)),
    get: (kind, uid) => within([kind], () => resources.get(kind, uid)),
    getForUpdate: (kind, uid) => within([kind], () => resources.getForUpdate(kind, uid)),
    replace: (kind, uid, body, updateTime) => within([kind], () => resources.replace(kind, uid, body, updateTime)),
    delete: (kind, uid) => within([kind], () => resources.delete(kind, uid)),
    list: (query) => within([query.kind], () => resources.list(query)),
    countChildren: (parent, children) => within(children, () => resources.countChildren(parent, children)),
  });
  return {
    resources: scoped(store.resources),
    transaction: (work) => store.transaction((tx) => work({ resources: scoped(tx.resources) })),
  };
}
