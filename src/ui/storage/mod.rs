//! Floor 2: persistence. IndexedDB here: one database (`repoqa-web`) with one key-value
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
//! Every function returns `Err(UiError)` instead of panicking: IndexedDB
//! can be missing (private windows) or full, and the app then simply
//! does not remember. `local.rs`: localStorage (the model API settings).

use std::cell::RefCell;

pub mod local;

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode};

use crate::ui::browser::time::yield_to_browser;
use crate::ui::error::UiError;

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
pub async fn save_json(key: &str, json: &str) -> Result<(), UiError> {
    put(key, &JsValue::from_str(json)).await
}

/// The JSON text stored under `key`, if any.
pub async fn load_json(key: &str) -> Result<Option<String>, UiError> {
    match get(key).await? {
        None => Ok(None),
        Some(v) => v.as_string().map(Some).ok_or_else(|| {
            UiError::Storage(format!("IndexedDB: the value of {key:?} is not a text"))
        }),
    }
}

/// Store bytes under `key`.
pub async fn save_bytes(key: &str, bytes: &[u8]) -> Result<(), UiError> {
    let data = Uint8Array::from(bytes);
    // For a 200 MB dataset the copy and IndexedDB's synchronous clone in
    // `put` take ~150 and ~260 ms: let the page have a turn between them.
    yield_to_browser().await;
    put(key, &data.into()).await
}

/// Store a file as it is: IndexedDB keeps a Blob without the synchronous
/// copy and clone that bytes cost (0.7 s for 200 MB, measured).
pub async fn save_blob(key: &str, blob: &web_sys::Blob) -> Result<(), UiError> {
    put(key, blob.as_ref()).await
}

/// The bytes stored under `key` (by `save_bytes` or `save_blob`), if any.
pub async fn load_bytes(key: &str) -> Result<Option<Vec<u8>>, UiError> {
    let Some(v) = get(key).await? else { return Ok(None) };
    if let Some(a) = v.dyn_ref::<Uint8Array>() {
        return Ok(Some(a.to_vec()));
    }
    match v.dyn_into::<web_sys::Blob>() {
        Ok(blob) => {
            let buf = JsFuture::from(blob.array_buffer()).await.map_err(|e| {
                UiError::js(format!("IndexedDB: cannot read the stored file {key:?}: read"), &e)
            })?;
            Ok(Some(Uint8Array::new(&buf).to_vec()))
        }
        Err(_) => Err(UiError::Storage(format!("IndexedDB: the value of {key:?} is not bytes"))),
    }
}

/// Remove `key` (no error if it is absent).
pub async fn delete(key: &str) -> Result<(), UiError> {
    let (tx, store) = store(IdbTransactionMode::Readwrite).await?;
    let req = store.delete(&JsValue::from_str(key)).map_err(|e| UiError::js("delete", &e))?;
    request(&req).await?;
    transaction_done(&tx).await
}

/// Every stored key.
pub async fn keys() -> Result<Vec<String>, UiError> {
    let (_tx, store) = store(IdbTransactionMode::Readonly).await?;
    let req = store.get_all_keys().map_err(|e| UiError::js("getAllKeys", &e))?;
    let all = request(&req).await?;
    Ok(js_sys::Array::from(&all).iter().filter_map(|k| k.as_string()).collect())
}

/// Remove everything ("New session").
pub async fn clear_all() -> Result<(), UiError> {
    let (tx, store) = store(IdbTransactionMode::Readwrite).await?;
    let req = store.clear().map_err(|e| UiError::js("clear", &e))?;
    request(&req).await?;
    transaction_done(&tx).await
}

async fn put(key: &str, value: &JsValue) -> Result<(), UiError> {
    let (tx, store) = store(IdbTransactionMode::Readwrite).await?;
    let req =
        store.put_with_key(value, &JsValue::from_str(key)).map_err(|e| UiError::js("put", &e))?;
    request(&req).await?;
    // Wait for the commit, so a reload right after sees the value.
    transaction_done(&tx).await
}

async fn get(key: &str) -> Result<Option<JsValue>, UiError> {
    let (_tx, store) = store(IdbTransactionMode::Readonly).await?;
    let req = store.get(&JsValue::from_str(key)).map_err(|e| UiError::js("get", &e))?;
    let v = request(&req).await?;
    Ok(if v.is_undefined() { None } else { Some(v) })
}

async fn store(
    mode: IdbTransactionMode,
) -> Result<(IdbTransaction, web_sys::IdbObjectStore), UiError> {
    let db = open().await?;
    let tx = db
        .transaction_with_str_and_mode(STORE, mode)
        .map_err(|e| UiError::js("transaction", &e))?;
    let store = tx.object_store(STORE).map_err(|e| UiError::js("objectStore", &e))?;
    Ok((tx, store))
}

async fn open() -> Result<IdbDatabase, UiError> {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let window = web_sys::window().ok_or(UiError::NoWindow)?;
    let factory = window
        .indexed_db()
        .map_err(|e| UiError::js("indexedDB", &e))?
        .ok_or_else(|| UiError::Storage("IndexedDB is not available in this browser".into()))?;
    let req: IdbOpenDbRequest =
        factory.open_with_u32(DB_NAME, DB_VERSION).map_err(|e| UiError::js("open", &e))?;
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
async fn request(req: &IdbRequest) -> Result<JsValue, UiError> {
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
    JsFuture::from(promise).await.map_err(|e| UiError::js("IndexedDB request", &e))
}

async fn transaction_done(tx: &IdbTransaction) -> Result<(), UiError> {
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
    JsFuture::from(promise).await.map(|_| ()).map_err(|e| UiError::js("IndexedDB transaction", &e))
}
