#!/usr/bin/python3
# QGIS 3.22 (Debian's python3-qgis, headless) against a running Landlex: an HTTP Basic auth
# configuration holding the API key as its password (as a QGIS user sets one up in Settings →
# Authentication), every OGC API Features collection loaded through QGIS's OAPIF provider with
# every feature counted against the server's numberMatched, and each vector tile layer rendered
# over its TileJSON bounds. Prints one line per check; exits 1 if any fails.
#
#   apt-get install -y --no-install-recommends python3-qgis
#   bin/qgis-check.py http://127.0.0.1:8080 <api key>
import base64
import json
import os
import sys
import tempfile
import time
import urllib.request

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
os.environ['QGIS_AUTH_DB_DIR_PATH'] = tempfile.mkdtemp(prefix='qgis-auth-')

from qgis.core import (  # noqa: E402
    QgsApplication, QgsAuthMethodConfig, QgsCoordinateReferenceSystem, QgsCoordinateTransform,
    QgsMapRendererSequentialJob, QgsMapSettings, QgsProject, QgsRectangle, QgsVectorLayer,
    QgsVectorTileLayer,
)
from qgis.PyQt.QtCore import QSize  # noqa: E402
from qgis.PyQt.QtGui import QColor  # noqa: E402

base, key = sys.argv[1].rstrip('/'), sys.argv[2]
basic = 'Basic ' + base64.b64encode(f'qgis:{key}'.encode()).decode()


def get(path):
    req = urllib.request.Request(base + path, headers={'Authorization': basic, 'Accept': 'application/json'})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


QgsApplication.setPrefixPath('/usr', True)
app = QgsApplication([], False)
app.initQgis()
auth = QgsApplication.authManager()
auth.setMasterPassword('landlex-check', True)
cfg = QgsAuthMethodConfig('Basic')
cfg.setName('Landlex key')
cfg.setConfig('username', 'qgis')
cfg.setConfig('password', key)
if not auth.storeAuthenticationConfig(cfg)[0]:
    sys.exit('could not store the Basic auth configuration')
authcfg = cfg.id()
failed = 0


def report(ok, line):
    global failed
    failed += 0 if ok else 1
    print(('ok   ' if ok else 'FAIL ') + line, flush=True)


for c in get('/map/ogc/collections')['collections']:
    expected = get(f"/map/ogc/collections/{c['id']}/items?limit=1").get('numberMatched')
    started = time.monotonic()
    layer = QgsVectorLayer(f"url='{base}/map/ogc' typename='{c['id']}' authcfg='{authcfg}'", c['id'], 'OAPIF')
    if not layer.isValid():
        report(False, f"OAPIF {c['id']}: the layer did not open ({layer.error().summary()})")
        continue
    count = sum(1 for _ in layer.getFeatures())
    report(expected is not None and count == expected, f"OAPIF {c['id']}: {count} features read, the server matches {expected} ({time.monotonic() - started:.1f} s)")

# the tile layers of the map versions held (tiles/layers.ts names them as map_version.layer does)
for name in sorted({m['layer'] for m in get('/map')['item']} & {'district', 'overlay', 'parcel', 'future_land_use'}):
    tj = get(f'/map/{name}')
    url = tj['tiles'][0]
    layer = QgsVectorTileLayer(f"type=xyz&url={url}&zmin={tj['minzoom']}&zmax={tj['maxzoom']}&authcfg={authcfg}", name)
    if not layer.isValid():
        report(False, f'tiles {name}: the layer did not open')
        continue
    west, south, east, north = tj['bounds']
    box = QgsCoordinateTransform(QgsCoordinateReferenceSystem('EPSG:4326'), QgsCoordinateReferenceSystem('EPSG:3857'), QgsProject.instance()).transformBoundingBox(QgsRectangle(west, south, east, north))
    # a view of the center at the zoom TileJSON frames it, so the layer's own zoom range is drawn
    zoom = max(tj.get('center', [0, 0, tj['minzoom']])[2], tj['minzoom'])
    size = 512
    span = 40075016.686 / 2 ** zoom * (size / 256)
    cx, cy = (box.xMinimum() + box.xMaximum()) / 2, (box.yMinimum() + box.yMaximum()) / 2
    if 'center' in tj:
        pt = QgsCoordinateTransform(QgsCoordinateReferenceSystem('EPSG:4326'), QgsCoordinateReferenceSystem('EPSG:3857'), QgsProject.instance()).transform(tj['center'][0], tj['center'][1])
        cx, cy = pt.x(), pt.y()
    settings = QgsMapSettings()
    settings.setLayers([layer])
    settings.setDestinationCrs(QgsCoordinateReferenceSystem('EPSG:3857'))
    settings.setExtent(QgsRectangle(cx - span / 2, cy - span / 2, cx + span / 2, cy + span / 2))
    settings.setOutputSize(QSize(size, size))
    settings.setBackgroundColor(QColor(255, 255, 255, 0))
    job = QgsMapRendererSequentialJob(settings)
    job.start()
    job.waitForFinished()
    image = job.renderedImage()
    painted = sum(1 for x in range(0, size, 4) for y in range(0, size, 4) if image.pixelColor(x, y).alpha() > 0)
    out = os.path.join(tempfile.gettempdir(), f'qgis-check-{name}.png')
    image.save(out)
    report(painted > 0, f'tiles {name}: rendered at z{zoom}, {painted} of {(size // 4) ** 2} sampled pixels drawn ({out})')

app.exitQgis()
sys.exit(1 if failed else 0)
