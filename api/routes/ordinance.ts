// GET /ordinance, /ordinance/{id} and /moratorium (spec 4.3): instruments across towns. Being built (issue 16.2).
import { defineRoutes } from '../route.ts';

export const ordinanceRoutes = defineRoutes([]);
