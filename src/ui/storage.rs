//! Persistence in IndexedDB: one database (`repoqa-web`) with one key-value
//! object store (`kv`). Values are strings (JSON) or bytes. Written with the
//! raw web-sys bindings (no wrapper crate): the app needs four operations,
//! and each is a request turned into a future here.
//!
//! Keys used by the app (other pages pick their own prefix, e.g.
//! `answers`, `results`):
//! - `settings`: the settings (JSON),
//! - `dataset-ref`: where the dataset came from (JSON: demo / url / file),
//! - `dataset-bytes`: an uploaded dataset file's bytes,
//! - `tokenizer-bytes`: an uploaded tokenizer file's bytes,
//! - `tasks:<dataset digest>:<settings>:<tokenizer digest>`: built tasks.
//!
//! Every function returns `Err(message)` instead of panicking: IndexedDB
//! can be missing (private windows) or full, and the app then simply
//! does not remember.

use std::cell::RefCell;

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode};

const DB_NAME: &str = "repoqa-web";
const DB_VERSION: u32 = 1;
const STORE: &str = "kv";

pub const KEY_SETTINGS: &str = "settings";
pub const KEY_DATASET_REF: &str = "dataset-ref";
pub const KEY_DATASET_BYTES: &str = "dataset-bytes";
pub const KEY_TOKENIZER_BYTES: &str = "tokenizer-bytes";
pub const TASKS_PREFIX: &str = "tasks:";

thread_local! {
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// Store a JSON text under `key` (replacing any previous value).
pub async fn save_json(key: &str, json: &str) -> Result<(), String> {
    put(key, &JsValue::from_str(json)).await
}

/// The JSON text stored under `key`, if any.
pub async fn load_json(key: &str) -> Result<Option<String>, String> {
    match get(key).await? {
        None => Ok(None),
        Some(v) => v
            .as_string()
            .map(Some)
            .ok_or_else(|| format!("IndexedDB: the value of {key:?} is not a text")),
    }
}

/// Store bytes under `key`.
pub async fn save_bytes(key: &str, bytes: &[u8]) -> Result<(), String> {
    let data = Uint8Array::from(bytes);
    // For a 200 MB dataset the copy and IndexedDB's synchronous clone in
    // `put` take ~150 and ~260 ms: let the page have a turn between them.
    super::progress::yield_to_browser().await;
    put(key, &data.into()).await
}

/// Store a file as it is: IndexedDB keeps a Blob without the synchronous
/// copy and clone that bytes cost (0.7 s for 200 MB, measured).
pub async fn save_blob(key: &str, blob: &web_sys::Blob) -> Result<(), String> {
    put(key, blob.as_ref()).await
}

/// The bytes stored under `key` (by `save_bytes` or `save_blob`), if any.
pub async fn load_bytes(key: &str) -> Result<Option<Vec<u8>>, String> {
    let Some(v) = get(key).await? else { return Ok(None) };
    if let Some(a) = v.dyn_ref::<Uint8Array>() {
        return Ok(Some(a.to_vec()));
    }
    match v.dyn_into::<web_sys::Blob>() {
        Ok(blob) => {
            let buf = JsFuture::from(blob.array_buffer()).await.map_err(|e| {
                format!("IndexedDB: cannot read the stored file {key:?}: {}", js_error("read", &e))
            })?;
            Ok(Some(Uint8Array::new(&buf).to_vec()))
        }
        Err(_) => Err(format!("IndexedDB: the value of {key:?} is not bytes")),
    }
}

/// Remove `key` (no error if it is absent).
pub async fn delete(key: &str) -> Result<(), String> {
    let (tx, store) = store(IdbTransactionMode::Readwrite).await?;
    let req = store.delete(&JsValue::from_str(key)).map_err(|e| js_error("delete", &e))?;
    request(&req).await?;
    transaction_done(&tx).await
}

/// Every stored key.
pub async fn keys() -> Result<Vec<String>, String> {
    let (_tx, store) = store(IdbTransactionMode::Readonly).await?;
    let req = store.get_all_keys().map_err(|e| js_error("getAllKeys", &e))?;
    let all = request(&req).await?;
    Ok(js_sys::Array::from(&all).iter().filter_map(|k| k.as_string()).collect())
}

/// Remove everything ("New session").
pub async fn clear_all() -> Result<(), String> {
    let (tx, store) = store(IdbTransactionMode::Readwrite).await?;
    let req = store.clear().map_err(|e| js_error("clear", &e))?;
    request(&req).await?;
    transaction_done(&tx).await
}

/// SHA-256 of `bytes` in hex (the same digest Web Crypto gives):
/// the dataset and tokenizer digests of the tasks cache key.
pub async fn sha256_hex(bytes: &[u8]) -> Result<String, String> {
    use sha2::Digest;
    // Hashed in slices with a turn for the page between them, so a 200 MB
    // dataset never stops it for long.
    const SLICE: usize = 4 << 20;
    let mut hasher = sha2::Sha256::new();
    let mut start = super::progress::now_ms();
    for chunk in bytes.chunks(SLICE) {
        hasher.update(chunk);
        if super::progress::now_ms() - start > 25.0 {
            super::progress::yield_to_browser().await;
            start = super::progress::now_ms();
        }
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

async fn put(key: &str, value: &JsValue) -> Result<(), String> {
    let (tx, store) = store(IdbTransactionMode::Readwrite).await?;
    let req =
        store.put_with_key(value, &JsValue::from_str(key)).map_err(|e| js_error("put", &e))?;
    request(&req).await?;
    // Wait for the commit, so a reload right after sees the value.
    transaction_done(&tx).await
}

async fn get(key: &str) -> Result<Option<JsValue>, String> {
    let (_tx, store) = store(IdbTransactionMode::Readonly).await?;
    let req = store.get(&JsValue::from_str(key)).map_err(|e| js_error("get", &e))?;
    let v = request(&req).await?;
    Ok(if v.is_undefined() { None } else { Some(v) })
}

async fn store(
    mode: IdbTransactionMode,
) -> Result<(IdbTransaction, web_sys::IdbObjectStore), String> {
    let db = open().await?;
    let tx =
        db.transaction_with_str_and_mode(STORE, mode).map_err(|e| js_error("transaction", &e))?;
    let store = tx.object_store(STORE).map_err(|e| js_error("objectStore", &e))?;
    Ok((tx, store))
}

async fn open() -> Result<IdbDatabase, String> {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let window = web_sys::window().ok_or("no window")?;
    let factory = window
        .indexed_db()
        .map_err(|e| js_error("indexedDB", &e))?
        .ok_or("IndexedDB is not available in this browser")?;
    let req: IdbOpenDbRequest =
        factory.open_with_u32(DB_NAME, DB_VERSION).map_err(|e| js_error("open", &e))?;
    let upgrade_req = req.clone();
    let on_upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |_e: web_sys::Event| {
        if let Ok(result) = upgrade_req.result() {
            let db: IdbDatabase = result.unchecked_into();
            if !db.object_store_names().contains(STORE) {
                let _ = db.create_object_store(STORE);
            }
        }
    });
    req.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
    let result = request(&req).await;
    req.set_onupgradeneeded(None);
    drop(on_upgrade);
    let db: IdbDatabase = result?.unchecked_into();
    DB.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

/// A request's result, once it succeeds.
async fn request(req: &IdbRequest) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve, reject| {
        let ok_req = req.clone();
        let on_ok = Closure::once_into_js(move |_e: web_sys::Event| {
            let _ = resolve.call1(&JsValue::NULL, &ok_req.result().unwrap_or(JsValue::UNDEFINED));
        });
        let err_req = req.clone();
        let on_err = Closure::once_into_js(move |e: web_sys::Event| {
            // Keep the error from also aborting the transaction noisily.
            e.prevent_default();
            let msg = match err_req.error() {
                Ok(Some(ex)) => format!("{}: {}", ex.name(), ex.message()),
                _ => "unknown error".to_string(),
            };
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&msg));
        });
        req.set_onsuccess(Some(on_ok.unchecked_ref()));
        req.set_onerror(Some(on_err.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| js_error("IndexedDB request", &e))
}

async fn transaction_done(tx: &IdbTransaction) -> Result<(), String> {
    let promise = Promise::new(&mut |resolve, reject| {
        let on_done = Closure::once_into_js(move |_e: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let err_tx = tx.clone();
        // Not `once`: a failed transaction fires both `error` and `abort`.
        let on_err = Closure::<dyn FnMut(web_sys::Event)>::new(move |_e: web_sys::Event| {
            let msg = match err_tx.error() {
                Some(ex) => format!("{}: {}", ex.name(), ex.message()),
                None => "transaction aborted".to_string(),
            };
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&msg));
        })
        .into_js_value();
        tx.set_oncomplete(Some(on_done.unchecked_ref()));
        tx.set_onerror(Some(on_err.unchecked_ref()));
        tx.set_onabort(Some(on_err.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ()).map_err(|e| js_error("IndexedDB transaction", &e))
}

/// A readable message from a thrown JS value.
pub fn js_error(what: &str, e: &JsValue) -> String {
    let text = e
        .as_string()
        .or_else(|| e.dyn_ref::<js_sys::Error>().map(|err| String::from(err.message())))
        .or_else(|| {
            e.dyn_ref::<web_sys::DomException>()
                .map(|ex| format!("{}: {}", ex.name(), ex.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"));
    format!("{what}: {text}")
}
