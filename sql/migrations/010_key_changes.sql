-- API processes keep recently used keys for a short while (api/auth.ts CredentialCache); any
-- change that can turn a key away (revoked, expiry, scopes, deleted) is announced to them.
CREATE FUNCTION api_key_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('landlex_key_changed', OLD.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_key_changed AFTER UPDATE ON api_key FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
        OR OLD.scopes IS DISTINCT FROM NEW.scopes OR OLD.key_hash IS DISTINCT FROM NEW.key_hash)
  EXECUTE FUNCTION api_key_changed();

CREATE TRIGGER api_key_deleted AFTER DELETE ON api_key FOR EACH ROW EXECUTE FUNCTION api_key_changed();
