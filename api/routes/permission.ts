// GET /permission (spec 4.3): where a use is allowed, across towns. Being built (issue 16.1).
import { defineRoutes } from '../route.ts';

export const permissionRoutes = defineRoutes([]);
