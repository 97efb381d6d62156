// GET /law, /law/{id} and /section (spec 4.3): searching the law's text across towns. Being built (issue 16.3).
import { defineRoutes } from '../route.ts';

export const lawRoutes = defineRoutes([]);
