// Every test run gets its own database, cloned from a migrated template (so concurrent runs
// never share one). Tests read its URL from TEST_DATABASE_URL. A missing PostgreSQL or PostGIS
// fails the run loudly; nothing is skipped.
import { createTemplate, dropDatabase, urlFor } from './helpers/databases.ts';

export default async function setup() {
  const template = await createTemplate();
  const name = `landlex_test_${process.pid}_${Date.now().toString(36)}`;
  const url = await urlFor(name, template);
  process.env.TEST_DATABASE_URL = url;
  return async () => {
    await dropDatabase(url);
  };
}
