import { InvalidResponseError } from "./errors.js";
import type { Page } from "./paginator.js";

/**
 * Every item of a paginated list, page after page, by page number. Not by `links.next`: the
 * links may name another host (a proxy's view), and Laravel's paginator drops the query
 * (the Pull DLR pages link `sms/status?page=2`, without the `date` that chose the records).
 * Stops on the last page or an empty one.
 * @throws InvalidResponseError when a page is not the one asked for (a server or proxy that
 *   ignores `page` would otherwise be asked for the same page forever)
 */
export async function* walkPages<T>(
  label: string,
  list: (page: number) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  for (let page = 1; ; page++) {
    const result = await list(page);
    if (result.page.current !== page) {
      throw new InvalidResponseError(label, {
        status: 200,
        body: result,
        issues: [`meta.current_page: asked for page ${page}, got ${result.page.current}`],
      });
    }
    yield* result.data;
    if (result.data.length === 0 || result.page.current >= result.page.last) return;
  }
}
