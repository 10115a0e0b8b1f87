import { openPostgres } from '../src/internal.js';
import { createTestDatabase, describeDatabaseConformance } from '../src/testing/index.js';

// Needs PostgreSQL on 127.0.0.1:5432 (trust auth); fails, never skips, when it is not there.
describeDatabaseConformance('postgres', async () => {
  const database = await createTestDatabase();
  return {
    connect: () => openPostgres({ connectionString: database.url }),
    dispose: () => database.drop(),
  };
});
