// The Security framework's result codes (Apple's SecBase.h, first enumeration), with the
// names and values Swift sees on Apple platforms: each is a read-only global `OSStatus`.
// Their human-readable texts live in KeychainClient's KeychainStatusMessages, which the tools share.
// The values the keychain itself returns come from `KeychainStatus`, the one table of them.

import KeychainClient
import KeychainVocabulary

/// Apple: `SecCopyErrorMessageString(_:_:)`. Returns the one-line English text that Apple's
/// Security framework gives for `status`, or `"OSStatus <status>"` when it has none.
///
/// The texts are those Apple's build generates from SecBase.h (the comment after each code);
/// codes declared there without a comment give their own name, as Apple's debug table does.
/// `reserved` is ignored, as on Apple platforms; pass `nil`.
@discardableResult
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    KeychainStatusMessages.message(for: status) as NSString
}

/// Apple: `errSecSuccess` (0). The call succeeded.
public var errSecSuccess: OSStatus { KeychainStatus.success.rawValue }
/// Apple: `errSecUnimplemented` (-4). The function or feature is not implemented (here: not supported on this platform).
public var errSecUnimplemented: OSStatus { KeychainStatus.unimplemented.rawValue }
/// Apple: `errSecDiskFull` (-34). The storage device is full.
public var errSecDiskFull: OSStatus { KeychainStatus.diskFull.rawValue }
/// Apple: `errSecIO` (-36). An input/output error occurred while reading or writing the keychain.
public var errSecIO: OSStatus { KeychainStatus.io.rawValue }
/// Apple: `errSecOpWr` (-49).
public var errSecOpWr: OSStatus { -49 }
/// Apple: `errSecParam` (-50). A parameter or a query dictionary was malformed or contradictory.
public var errSecParam: OSStatus { KeychainStatus.param.rawValue }
/// Apple: `errSecWrPerm` (-61). Writing was refused for lack of permission.
public var errSecWrPerm: OSStatus { -61 }
/// Apple: `errSecAllocate` (-108). Memory could not be allocated.
public var errSecAllocate: OSStatus { KeychainStatus.allocate.rawValue }
/// Apple: `errSecUserCanceled` (-128). The user dismissed an authentication prompt.
public var errSecUserCanceled: OSStatus { KeychainStatus.userCanceled.rawValue }
/// Apple: `errSecBadReq` (-909). The request is invalid in the current state.
public var errSecBadReq: OSStatus { -909 }
/// Apple: `errSecInternalComponent` (-2070). An internal component failed.
public var errSecInternalComponent: OSStatus { KeychainStatus.internalComponent.rawValue }
/// Apple: `errSecCoreFoundationUnknown` (-4960).
public var errSecCoreFoundationUnknown: OSStatus { -4960 }
/// Apple: `errSecMissingEntitlement` (-34018). The caller is not entitled to the requested access group.
public var errSecMissingEntitlement: OSStatus { KeychainStatus.missingEntitlement.rawValue }
/// Apple: `errSecRestrictedAPI` (-34020). The caller is restricted and may not perform this operation.
public var errSecRestrictedAPI: OSStatus { -34020 }
/// Apple: `errSecNotAvailable` (-25291). No keychain is available, or a required key (for example a passcode-bound class key) does not exist.
public var errSecNotAvailable: OSStatus { KeychainStatus.notAvailable.rawValue }
/// Apple: `errSecReadOnly` (-25292). The keychain cannot be modified.
public var errSecReadOnly: OSStatus { KeychainStatus.readOnly.rawValue }
/// Apple: `errSecAuthFailed` (-25293). Authentication failed, or the item's access control forbids the operation.
public var errSecAuthFailed: OSStatus { KeychainStatus.authFailed.rawValue }
/// Apple: `errSecNoSuchKeychain` (-25294). The named keychain does not exist.
public var errSecNoSuchKeychain: OSStatus { KeychainStatus.noSuchKeychain.rawValue }
/// Apple: `errSecInvalidKeychain` (-25295). The keychain file is not a valid keychain.
public var errSecInvalidKeychain: OSStatus { KeychainStatus.invalidKeychain.rawValue }
/// Apple: `errSecDuplicateKeychain` (-25296). A keychain with that name already exists.
public var errSecDuplicateKeychain: OSStatus { KeychainStatus.duplicateKeychain.rawValue }
/// Apple: `errSecDuplicateCallback` (-25297).
public var errSecDuplicateCallback: OSStatus { -25297 }
/// Apple: `errSecInvalidCallback` (-25298).
public var errSecInvalidCallback: OSStatus { -25298 }
/// Apple: `errSecDuplicateItem` (-25299). An item with the same primary key already exists.
public var errSecDuplicateItem: OSStatus { KeychainStatus.duplicateItem.rawValue }
/// Apple: `errSecItemNotFound` (-25300). No item matched the query.
public var errSecItemNotFound: OSStatus { KeychainStatus.itemNotFound.rawValue }
/// Apple: `errSecBufferTooSmall` (-25301).
public var errSecBufferTooSmall: OSStatus { -25301 }
/// Apple: `errSecDataTooLarge` (-25302).
public var errSecDataTooLarge: OSStatus { -25302 }
/// Apple: `errSecNoSuchAttr` (-25303). A key in the dictionary is not an attribute of the item class.
public var errSecNoSuchAttr: OSStatus { KeychainStatus.noSuchAttribute.rawValue }
/// Apple: `errSecInvalidItemRef` (-25304). The item reference no longer designates an item.
public var errSecInvalidItemRef: OSStatus { -25304 }
/// Apple: `errSecInvalidSearchRef` (-25305).
public var errSecInvalidSearchRef: OSStatus { -25305 }
/// Apple: `errSecNoSuchClass` (-25306). The kSecClass value names no item class.
public var errSecNoSuchClass: OSStatus { KeychainStatus.noSuchClass.rawValue }
/// Apple: `errSecNoDefaultKeychain` (-25307). There is no default keychain.
public var errSecNoDefaultKeychain: OSStatus { -25307 }
/// Apple: `errSecInteractionNotAllowed` (-25308). The item is locked away (keychain locked) or would need user interaction that is not allowed.
public var errSecInteractionNotAllowed: OSStatus { KeychainStatus.interactionNotAllowed.rawValue }
/// Apple: `errSecReadOnlyAttr` (-25309). The attribute cannot be changed.
public var errSecReadOnlyAttr: OSStatus { -25309 }
/// Apple: `errSecWrongSecVersion` (-25310).
public var errSecWrongSecVersion: OSStatus { -25310 }
/// Apple: `errSecKeySizeNotAllowed` (-25311).
public var errSecKeySizeNotAllowed: OSStatus { -25311 }
/// Apple: `errSecNoStorageModule` (-25312).
public var errSecNoStorageModule: OSStatus { -25312 }
/// Apple: `errSecNoCertificateModule` (-25313).
public var errSecNoCertificateModule: OSStatus { -25313 }
/// Apple: `errSecNoPolicyModule` (-25314).
public var errSecNoPolicyModule: OSStatus { -25314 }
/// Apple: `errSecInteractionRequired` (-25315). User interaction is required but not allowed.
public var errSecInteractionRequired: OSStatus { -25315 }
/// Apple: `errSecDataNotAvailable` (-25316). The item's contents cannot be retrieved.
public var errSecDataNotAvailable: OSStatus { -25316 }
/// Apple: `errSecDataNotModifiable` (-25317). The item's contents cannot be modified.
public var errSecDataNotModifiable: OSStatus { -25317 }
/// Apple: `errSecCreateChainFailed` (-25318).
public var errSecCreateChainFailed: OSStatus { -25318 }
/// Apple: `errSecInvalidPrefsDomain` (-25319).
public var errSecInvalidPrefsDomain: OSStatus { -25319 }
/// Apple: `errSecInDarkWake` (-25320).
public var errSecInDarkWake: OSStatus { -25320 }
/// Apple: `errSecACLNotSimple` (-25240).
public var errSecACLNotSimple: OSStatus { -25240 }
/// Apple: `errSecPolicyNotFound` (-25241).
public var errSecPolicyNotFound: OSStatus { -25241 }
/// Apple: `errSecInvalidTrustSetting` (-25242).
public var errSecInvalidTrustSetting: OSStatus { -25242 }
/// Apple: `errSecNoAccessForItem` (-25243).
public var errSecNoAccessForItem: OSStatus { -25243 }
/// Apple: `errSecInvalidOwnerEdit` (-25244).
public var errSecInvalidOwnerEdit: OSStatus { -25244 }
/// Apple: `errSecTrustNotAvailable` (-25245).
public var errSecTrustNotAvailable: OSStatus { -25245 }
/// Apple: `errSecUnsupportedFormat` (-25256).
public var errSecUnsupportedFormat: OSStatus { -25256 }
/// Apple: `errSecUnknownFormat` (-25257).
public var errSecUnknownFormat: OSStatus { -25257 }
/// Apple: `errSecKeyIsSensitive` (-25258).
public var errSecKeyIsSensitive: OSStatus { -25258 }
/// Apple: `errSecMultiplePrivKeys` (-25259).
public var errSecMultiplePrivKeys: OSStatus { -25259 }
/// Apple: `errSecPassphraseRequired` (-25260).
public var errSecPassphraseRequired: OSStatus { -25260 }
/// Apple: `errSecInvalidPasswordRef` (-25261).
public var errSecInvalidPasswordRef: OSStatus { -25261 }
/// Apple: `errSecInvalidTrustSettings` (-25262).
public var errSecInvalidTrustSettings: OSStatus { -25262 }
/// Apple: `errSecNoTrustSettings` (-25263).
public var errSecNoTrustSettings: OSStatus { -25263 }
/// Apple: `errSecPkcs12VerifyFailure` (-25264).
public var errSecPkcs12VerifyFailure: OSStatus { -25264 }
/// Apple: `errSecNotSigner` (-26267).
public var errSecNotSigner: OSStatus { -26267 }
/// Apple: `errSecDecode` (-26275). Data could not be decoded (for example a corrupt or foreign item).
public var errSecDecode: OSStatus { KeychainStatus.decode.rawValue }
/// Apple: `errSecServiceNotAvailable` (-67585).
public var errSecServiceNotAvailable: OSStatus { -67585 }
/// Apple: `errSecInsufficientClientID` (-67586).
public var errSecInsufficientClientID: OSStatus { -67586 }
/// Apple: `errSecDeviceReset` (-67587).
public var errSecDeviceReset: OSStatus { -67587 }
/// Apple: `errSecDeviceFailed` (-67588).
public var errSecDeviceFailed: OSStatus { -67588 }
/// Apple: `errSecAppleAddAppACLSubject` (-67589).
public var errSecAppleAddAppACLSubject: OSStatus { -67589 }
/// Apple: `errSecApplePublicKeyIncomplete` (-67590).
public var errSecApplePublicKeyIncomplete: OSStatus { -67590 }
/// Apple: `errSecAppleSignatureMismatch` (-67591).
public var errSecAppleSignatureMismatch: OSStatus { -67591 }
/// Apple: `errSecAppleInvalidKeyStartDate` (-67592).
public var errSecAppleInvalidKeyStartDate: OSStatus { -67592 }
/// Apple: `errSecAppleInvalidKeyEndDate` (-67593).
public var errSecAppleInvalidKeyEndDate: OSStatus { -67593 }
/// Apple: `errSecConversionError` (-67594).
public var errSecConversionError: OSStatus { -67594 }
/// Apple: `errSecAppleSSLv2Rollback` (-67595).
public var errSecAppleSSLv2Rollback: OSStatus { -67595 }
/// Apple: `errSecQuotaExceeded` (-67596).
public var errSecQuotaExceeded: OSStatus { -67596 }
/// Apple: `errSecFileTooBig` (-67597).
public var errSecFileTooBig: OSStatus { -67597 }
/// Apple: `errSecInvalidDatabaseBlob` (-67598).
public var errSecInvalidDatabaseBlob: OSStatus { -67598 }
/// Apple: `errSecInvalidKeyBlob` (-67599).
public var errSecInvalidKeyBlob: OSStatus { -67599 }
/// Apple: `errSecIncompatibleDatabaseBlob` (-67600).
public var errSecIncompatibleDatabaseBlob: OSStatus { -67600 }
/// Apple: `errSecIncompatibleKeyBlob` (-67601).
public var errSecIncompatibleKeyBlob: OSStatus { -67601 }
/// Apple: `errSecHostNameMismatch` (-67602).
public var errSecHostNameMismatch: OSStatus { -67602 }
/// Apple: `errSecUnknownCriticalExtensionFlag` (-67603).
public var errSecUnknownCriticalExtensionFlag: OSStatus { -67603 }
/// Apple: `errSecNoBasicConstraints` (-67604).
public var errSecNoBasicConstraints: OSStatus { -67604 }
/// Apple: `errSecNoBasicConstraintsCA` (-67605).
public var errSecNoBasicConstraintsCA: OSStatus { -67605 }
/// Apple: `errSecInvalidAuthorityKeyID` (-67606).
public var errSecInvalidAuthorityKeyID: OSStatus { -67606 }
/// Apple: `errSecInvalidSubjectKeyID` (-67607).
public var errSecInvalidSubjectKeyID: OSStatus { -67607 }
/// Apple: `errSecInvalidKeyUsageForPolicy` (-67608).
public var errSecInvalidKeyUsageForPolicy: OSStatus { -67608 }
/// Apple: `errSecInvalidExtendedKeyUsage` (-67609).
public var errSecInvalidExtendedKeyUsage: OSStatus { -67609 }
/// Apple: `errSecInvalidIDLinkage` (-67610).
public var errSecInvalidIDLinkage: OSStatus { -67610 }
/// Apple: `errSecPathLengthConstraintExceeded` (-67611).
public var errSecPathLengthConstraintExceeded: OSStatus { -67611 }
/// Apple: `errSecInvalidRoot` (-67612).
public var errSecInvalidRoot: OSStatus { -67612 }
/// Apple: `errSecCRLExpired` (-67613).
public var errSecCRLExpired: OSStatus { -67613 }
/// Apple: `errSecCRLNotValidYet` (-67614).
public var errSecCRLNotValidYet: OSStatus { -67614 }
/// Apple: `errSecCRLNotFound` (-67615).
public var errSecCRLNotFound: OSStatus { -67615 }
/// Apple: `errSecCRLServerDown` (-67616).
public var errSecCRLServerDown: OSStatus { -67616 }
/// Apple: `errSecCRLBadURI` (-67617).
public var errSecCRLBadURI: OSStatus { -67617 }
/// Apple: `errSecUnknownCertExtension` (-67618).
public var errSecUnknownCertExtension: OSStatus { -67618 }
/// Apple: `errSecUnknownCRLExtension` (-67619).
public var errSecUnknownCRLExtension: OSStatus { -67619 }
/// Apple: `errSecCRLNotTrusted` (-67620).
public var errSecCRLNotTrusted: OSStatus { -67620 }
/// Apple: `errSecCRLPolicyFailed` (-67621).
public var errSecCRLPolicyFailed: OSStatus { -67621 }
/// Apple: `errSecIDPFailure` (-67622).
public var errSecIDPFailure: OSStatus { -67622 }
/// Apple: `errSecSMIMEEmailAddressesNotFound` (-67623).
public var errSecSMIMEEmailAddressesNotFound: OSStatus { -67623 }
/// Apple: `errSecSMIMEBadExtendedKeyUsage` (-67624).
public var errSecSMIMEBadExtendedKeyUsage: OSStatus { -67624 }
/// Apple: `errSecSMIMEBadKeyUsage` (-67625).
public var errSecSMIMEBadKeyUsage: OSStatus { -67625 }
/// Apple: `errSecSMIMEKeyUsageNotCritical` (-67626).
public var errSecSMIMEKeyUsageNotCritical: OSStatus { -67626 }
/// Apple: `errSecSMIMENoEmailAddress` (-67627).
public var errSecSMIMENoEmailAddress: OSStatus { -67627 }
/// Apple: `errSecSMIMESubjAltNameNotCritical` (-67628).
public var errSecSMIMESubjAltNameNotCritical: OSStatus { -67628 }
/// Apple: `errSecSSLBadExtendedKeyUsage` (-67629).
public var errSecSSLBadExtendedKeyUsage: OSStatus { -67629 }
/// Apple: `errSecOCSPBadResponse` (-67630).
public var errSecOCSPBadResponse: OSStatus { -67630 }
/// Apple: `errSecOCSPBadRequest` (-67631).
public var errSecOCSPBadRequest: OSStatus { -67631 }
/// Apple: `errSecOCSPUnavailable` (-67632).
public var errSecOCSPUnavailable: OSStatus { -67632 }
/// Apple: `errSecOCSPStatusUnrecognized` (-67633).
public var errSecOCSPStatusUnrecognized: OSStatus { -67633 }
/// Apple: `errSecEndOfData` (-67634).
public var errSecEndOfData: OSStatus { -67634 }
/// Apple: `errSecIncompleteCertRevocationCheck` (-67635).
public var errSecIncompleteCertRevocationCheck: OSStatus { -67635 }
/// Apple: `errSecNetworkFailure` (-67636).
public var errSecNetworkFailure: OSStatus { -67636 }
/// Apple: `errSecOCSPNotTrustedToAnchor` (-67637).
public var errSecOCSPNotTrustedToAnchor: OSStatus { -67637 }
/// Apple: `errSecRecordModified` (-67638).
public var errSecRecordModified: OSStatus { -67638 }
/// Apple: `errSecOCSPSignatureError` (-67639).
public var errSecOCSPSignatureError: OSStatus { -67639 }
/// Apple: `errSecOCSPNoSigner` (-67640).
public var errSecOCSPNoSigner: OSStatus { -67640 }
/// Apple: `errSecOCSPResponderMalformedReq` (-67641).
public var errSecOCSPResponderMalformedReq: OSStatus { -67641 }
/// Apple: `errSecOCSPResponderInternalError` (-67642).
public var errSecOCSPResponderInternalError: OSStatus { -67642 }
/// Apple: `errSecOCSPResponderTryLater` (-67643).
public var errSecOCSPResponderTryLater: OSStatus { -67643 }
/// Apple: `errSecOCSPResponderSignatureRequired` (-67644).
public var errSecOCSPResponderSignatureRequired: OSStatus { -67644 }
/// Apple: `errSecOCSPResponderUnauthorized` (-67645).
public var errSecOCSPResponderUnauthorized: OSStatus { -67645 }
/// Apple: `errSecOCSPResponseNonceMismatch` (-67646).
public var errSecOCSPResponseNonceMismatch: OSStatus { -67646 }
/// Apple: `errSecCodeSigningBadCertChainLength` (-67647).
public var errSecCodeSigningBadCertChainLength: OSStatus { -67647 }
/// Apple: `errSecCodeSigningNoBasicConstraints` (-67648).
public var errSecCodeSigningNoBasicConstraints: OSStatus { -67648 }
/// Apple: `errSecCodeSigningBadPathLengthConstraint` (-67649).
public var errSecCodeSigningBadPathLengthConstraint: OSStatus { -67649 }
/// Apple: `errSecCodeSigningNoExtendedKeyUsage` (-67650).
public var errSecCodeSigningNoExtendedKeyUsage: OSStatus { -67650 }
/// Apple: `errSecCodeSigningDevelopment` (-67651).
public var errSecCodeSigningDevelopment: OSStatus { -67651 }
/// Apple: `errSecResourceSignBadCertChainLength` (-67652).
public var errSecResourceSignBadCertChainLength: OSStatus { -67652 }
/// Apple: `errSecResourceSignBadExtKeyUsage` (-67653).
public var errSecResourceSignBadExtKeyUsage: OSStatus { -67653 }
/// Apple: `errSecTrustSettingDeny` (-67654).
public var errSecTrustSettingDeny: OSStatus { -67654 }
/// Apple: `errSecInvalidSubjectName` (-67655).
public var errSecInvalidSubjectName: OSStatus { -67655 }
/// Apple: `errSecUnknownQualifiedCertStatement` (-67656).
public var errSecUnknownQualifiedCertStatement: OSStatus { -67656 }
/// Apple: `errSecMobileMeRequestQueued` (-67657).
public var errSecMobileMeRequestQueued: OSStatus { -67657 }
/// Apple: `errSecMobileMeRequestRedirected` (-67658).
public var errSecMobileMeRequestRedirected: OSStatus { -67658 }
/// Apple: `errSecMobileMeServerError` (-67659).
public var errSecMobileMeServerError: OSStatus { -67659 }
/// Apple: `errSecMobileMeServerNotAvailable` (-67660).
public var errSecMobileMeServerNotAvailable: OSStatus { -67660 }
/// Apple: `errSecMobileMeServerAlreadyExists` (-67661).
public var errSecMobileMeServerAlreadyExists: OSStatus { -67661 }
/// Apple: `errSecMobileMeServerServiceErr` (-67662).
public var errSecMobileMeServerServiceErr: OSStatus { -67662 }
/// Apple: `errSecMobileMeRequestAlreadyPending` (-67663).
public var errSecMobileMeRequestAlreadyPending: OSStatus { -67663 }
/// Apple: `errSecMobileMeNoRequestPending` (-67664).
public var errSecMobileMeNoRequestPending: OSStatus { -67664 }
/// Apple: `errSecMobileMeCSRVerifyFailure` (-67665).
public var errSecMobileMeCSRVerifyFailure: OSStatus { -67665 }
/// Apple: `errSecMobileMeFailedConsistencyCheck` (-67666).
public var errSecMobileMeFailedConsistencyCheck: OSStatus { -67666 }
/// Apple: `errSecNotInitialized` (-67667).
public var errSecNotInitialized: OSStatus { -67667 }
/// Apple: `errSecInvalidHandleUsage` (-67668).
public var errSecInvalidHandleUsage: OSStatus { -67668 }
/// Apple: `errSecPVCReferentNotFound` (-67669).
public var errSecPVCReferentNotFound: OSStatus { -67669 }
/// Apple: `errSecFunctionIntegrityFail` (-67670).
public var errSecFunctionIntegrityFail: OSStatus { -67670 }
/// Apple: `errSecInternalError` (-67671).
public var errSecInternalError: OSStatus { -67671 }
/// Apple: `errSecMemoryError` (-67672).
public var errSecMemoryError: OSStatus { -67672 }
/// Apple: `errSecInvalidData` (-67673).
public var errSecInvalidData: OSStatus { -67673 }
/// Apple: `errSecMDSError` (-67674).
public var errSecMDSError: OSStatus { -67674 }
/// Apple: `errSecInvalidPointer` (-67675).
public var errSecInvalidPointer: OSStatus { -67675 }
/// Apple: `errSecSelfCheckFailed` (-67676).
public var errSecSelfCheckFailed: OSStatus { -67676 }
/// Apple: `errSecFunctionFailed` (-67677).
public var errSecFunctionFailed: OSStatus { -67677 }
/// Apple: `errSecModuleManifestVerifyFailed` (-67678).
public var errSecModuleManifestVerifyFailed: OSStatus { -67678 }
/// Apple: `errSecInvalidGUID` (-67679).
public var errSecInvalidGUID: OSStatus { -67679 }
/// Apple: `errSecInvalidHandle` (-67680).
public var errSecInvalidHandle: OSStatus { -67680 }
/// Apple: `errSecInvalidDBList` (-67681).
public var errSecInvalidDBList: OSStatus { -67681 }
/// Apple: `errSecInvalidPassthroughID` (-67682).
public var errSecInvalidPassthroughID: OSStatus { -67682 }
/// Apple: `errSecInvalidNetworkAddress` (-67683).
public var errSecInvalidNetworkAddress: OSStatus { -67683 }
/// Apple: `errSecCRLAlreadySigned` (-67684).
public var errSecCRLAlreadySigned: OSStatus { -67684 }
/// Apple: `errSecInvalidNumberOfFields` (-67685).
public var errSecInvalidNumberOfFields: OSStatus { -67685 }
/// Apple: `errSecVerificationFailure` (-67686).
public var errSecVerificationFailure: OSStatus { -67686 }
/// Apple: `errSecUnknownTag` (-67687).
public var errSecUnknownTag: OSStatus { -67687 }
/// Apple: `errSecInvalidSignature` (-67688).
public var errSecInvalidSignature: OSStatus { -67688 }
/// Apple: `errSecInvalidName` (-67689).
public var errSecInvalidName: OSStatus { -67689 }
/// Apple: `errSecInvalidCertificateRef` (-67690).
public var errSecInvalidCertificateRef: OSStatus { -67690 }
/// Apple: `errSecInvalidCertificateGroup` (-67691).
public var errSecInvalidCertificateGroup: OSStatus { -67691 }
/// Apple: `errSecTagNotFound` (-67692).
public var errSecTagNotFound: OSStatus { -67692 }
/// Apple: `errSecInvalidQuery` (-67693).
public var errSecInvalidQuery: OSStatus { -67693 }
/// Apple: `errSecInvalidValue` (-67694).
public var errSecInvalidValue: OSStatus { -67694 }
/// Apple: `errSecCallbackFailed` (-67695).
public var errSecCallbackFailed: OSStatus { -67695 }
/// Apple: `errSecACLDeleteFailed` (-67696).
public var errSecACLDeleteFailed: OSStatus { -67696 }
/// Apple: `errSecACLReplaceFailed` (-67697).
public var errSecACLReplaceFailed: OSStatus { -67697 }
/// Apple: `errSecACLAddFailed` (-67698).
public var errSecACLAddFailed: OSStatus { -67698 }
/// Apple: `errSecACLChangeFailed` (-67699).
public var errSecACLChangeFailed: OSStatus { -67699 }
/// Apple: `errSecInvalidAccessCredentials` (-67700).
public var errSecInvalidAccessCredentials: OSStatus { -67700 }
/// Apple: `errSecInvalidRecord` (-67701).
public var errSecInvalidRecord: OSStatus { -67701 }
/// Apple: `errSecInvalidACL` (-67702).
public var errSecInvalidACL: OSStatus { -67702 }
/// Apple: `errSecInvalidSampleValue` (-67703).
public var errSecInvalidSampleValue: OSStatus { -67703 }
/// Apple: `errSecIncompatibleVersion` (-67704).
public var errSecIncompatibleVersion: OSStatus { -67704 }
/// Apple: `errSecPrivilegeNotGranted` (-67705).
public var errSecPrivilegeNotGranted: OSStatus { -67705 }
/// Apple: `errSecInvalidScope` (-67706).
public var errSecInvalidScope: OSStatus { -67706 }
/// Apple: `errSecPVCAlreadyConfigured` (-67707).
public var errSecPVCAlreadyConfigured: OSStatus { -67707 }
/// Apple: `errSecInvalidPVC` (-67708).
public var errSecInvalidPVC: OSStatus { -67708 }
/// Apple: `errSecEMMLoadFailed` (-67709).
public var errSecEMMLoadFailed: OSStatus { -67709 }
/// Apple: `errSecEMMUnloadFailed` (-67710).
public var errSecEMMUnloadFailed: OSStatus { -67710 }
/// Apple: `errSecAddinLoadFailed` (-67711).
public var errSecAddinLoadFailed: OSStatus { -67711 }
/// Apple: `errSecInvalidKeyRef` (-67712).
public var errSecInvalidKeyRef: OSStatus { -67712 }
/// Apple: `errSecInvalidKeyHierarchy` (-67713).
public var errSecInvalidKeyHierarchy: OSStatus { -67713 }
/// Apple: `errSecAddinUnloadFailed` (-67714).
public var errSecAddinUnloadFailed: OSStatus { -67714 }
/// Apple: `errSecLibraryReferenceNotFound` (-67715).
public var errSecLibraryReferenceNotFound: OSStatus { -67715 }
/// Apple: `errSecInvalidAddinFunctionTable` (-67716).
public var errSecInvalidAddinFunctionTable: OSStatus { -67716 }
/// Apple: `errSecInvalidServiceMask` (-67717).
public var errSecInvalidServiceMask: OSStatus { -67717 }
/// Apple: `errSecModuleNotLoaded` (-67718).
public var errSecModuleNotLoaded: OSStatus { -67718 }
/// Apple: `errSecInvalidSubServiceID` (-67719).
public var errSecInvalidSubServiceID: OSStatus { -67719 }
/// Apple: `errSecAttributeNotInContext` (-67720).
public var errSecAttributeNotInContext: OSStatus { -67720 }
/// Apple: `errSecModuleManagerInitializeFailed` (-67721).
public var errSecModuleManagerInitializeFailed: OSStatus { -67721 }
/// Apple: `errSecModuleManagerNotFound` (-67722).
public var errSecModuleManagerNotFound: OSStatus { -67722 }
/// Apple: `errSecEventNotificationCallbackNotFound` (-67723).
public var errSecEventNotificationCallbackNotFound: OSStatus { -67723 }
/// Apple: `errSecInputLengthError` (-67724).
public var errSecInputLengthError: OSStatus { -67724 }
/// Apple: `errSecOutputLengthError` (-67725).
public var errSecOutputLengthError: OSStatus { -67725 }
/// Apple: `errSecPrivilegeNotSupported` (-67726).
public var errSecPrivilegeNotSupported: OSStatus { -67726 }
/// Apple: `errSecDeviceError` (-67727).
public var errSecDeviceError: OSStatus { -67727 }
/// Apple: `errSecAttachHandleBusy` (-67728).
public var errSecAttachHandleBusy: OSStatus { -67728 }
/// Apple: `errSecNotLoggedIn` (-67729).
public var errSecNotLoggedIn: OSStatus { -67729 }
/// Apple: `errSecAlgorithmMismatch` (-67730).
public var errSecAlgorithmMismatch: OSStatus { -67730 }
/// Apple: `errSecKeyUsageIncorrect` (-67731).
public var errSecKeyUsageIncorrect: OSStatus { -67731 }
/// Apple: `errSecKeyBlobTypeIncorrect` (-67732).
public var errSecKeyBlobTypeIncorrect: OSStatus { -67732 }
/// Apple: `errSecKeyHeaderInconsistent` (-67733).
public var errSecKeyHeaderInconsistent: OSStatus { -67733 }
/// Apple: `errSecUnsupportedKeyFormat` (-67734).
public var errSecUnsupportedKeyFormat: OSStatus { -67734 }
/// Apple: `errSecUnsupportedKeySize` (-67735).
public var errSecUnsupportedKeySize: OSStatus { -67735 }
/// Apple: `errSecInvalidKeyUsageMask` (-67736).
public var errSecInvalidKeyUsageMask: OSStatus { -67736 }
/// Apple: `errSecUnsupportedKeyUsageMask` (-67737).
public var errSecUnsupportedKeyUsageMask: OSStatus { -67737 }
/// Apple: `errSecInvalidKeyAttributeMask` (-67738).
public var errSecInvalidKeyAttributeMask: OSStatus { -67738 }
/// Apple: `errSecUnsupportedKeyAttributeMask` (-67739).
public var errSecUnsupportedKeyAttributeMask: OSStatus { -67739 }
/// Apple: `errSecInvalidKeyLabel` (-67740).
public var errSecInvalidKeyLabel: OSStatus { -67740 }
/// Apple: `errSecUnsupportedKeyLabel` (-67741).
public var errSecUnsupportedKeyLabel: OSStatus { -67741 }
/// Apple: `errSecInvalidKeyFormat` (-67742).
public var errSecInvalidKeyFormat: OSStatus { -67742 }
/// Apple: `errSecUnsupportedVectorOfBuffers` (-67743).
public var errSecUnsupportedVectorOfBuffers: OSStatus { -67743 }
/// Apple: `errSecInvalidInputVector` (-67744).
public var errSecInvalidInputVector: OSStatus { -67744 }
/// Apple: `errSecInvalidOutputVector` (-67745).
public var errSecInvalidOutputVector: OSStatus { -67745 }
/// Apple: `errSecInvalidContext` (-67746).
public var errSecInvalidContext: OSStatus { -67746 }
/// Apple: `errSecInvalidAlgorithm` (-67747).
public var errSecInvalidAlgorithm: OSStatus { -67747 }
/// Apple: `errSecInvalidAttributeKey` (-67748).
public var errSecInvalidAttributeKey: OSStatus { -67748 }
/// Apple: `errSecMissingAttributeKey` (-67749).
public var errSecMissingAttributeKey: OSStatus { -67749 }
/// Apple: `errSecInvalidAttributeInitVector` (-67750).
public var errSecInvalidAttributeInitVector: OSStatus { -67750 }
/// Apple: `errSecMissingAttributeInitVector` (-67751).
public var errSecMissingAttributeInitVector: OSStatus { -67751 }
/// Apple: `errSecInvalidAttributeSalt` (-67752).
public var errSecInvalidAttributeSalt: OSStatus { -67752 }
/// Apple: `errSecMissingAttributeSalt` (-67753).
public var errSecMissingAttributeSalt: OSStatus { -67753 }
/// Apple: `errSecInvalidAttributePadding` (-67754).
public var errSecInvalidAttributePadding: OSStatus { -67754 }
/// Apple: `errSecMissingAttributePadding` (-67755).
public var errSecMissingAttributePadding: OSStatus { -67755 }
/// Apple: `errSecInvalidAttributeRandom` (-67756).
public var errSecInvalidAttributeRandom: OSStatus { -67756 }
/// Apple: `errSecMissingAttributeRandom` (-67757).
public var errSecMissingAttributeRandom: OSStatus { -67757 }
/// Apple: `errSecInvalidAttributeSeed` (-67758).
public var errSecInvalidAttributeSeed: OSStatus { -67758 }
/// Apple: `errSecMissingAttributeSeed` (-67759).
public var errSecMissingAttributeSeed: OSStatus { -67759 }
/// Apple: `errSecInvalidAttributePassphrase` (-67760).
public var errSecInvalidAttributePassphrase: OSStatus { -67760 }
/// Apple: `errSecMissingAttributePassphrase` (-67761).
public var errSecMissingAttributePassphrase: OSStatus { -67761 }
/// Apple: `errSecInvalidAttributeKeyLength` (-67762).
public var errSecInvalidAttributeKeyLength: OSStatus { -67762 }
/// Apple: `errSecMissingAttributeKeyLength` (-67763).
public var errSecMissingAttributeKeyLength: OSStatus { -67763 }
/// Apple: `errSecInvalidAttributeBlockSize` (-67764).
public var errSecInvalidAttributeBlockSize: OSStatus { -67764 }
/// Apple: `errSecMissingAttributeBlockSize` (-67765).
public var errSecMissingAttributeBlockSize: OSStatus { -67765 }
/// Apple: `errSecInvalidAttributeOutputSize` (-67766).
public var errSecInvalidAttributeOutputSize: OSStatus { -67766 }
/// Apple: `errSecMissingAttributeOutputSize` (-67767).
public var errSecMissingAttributeOutputSize: OSStatus { -67767 }
/// Apple: `errSecInvalidAttributeRounds` (-67768).
public var errSecInvalidAttributeRounds: OSStatus { -67768 }
/// Apple: `errSecMissingAttributeRounds` (-67769).
public var errSecMissingAttributeRounds: OSStatus { -67769 }
/// Apple: `errSecInvalidAlgorithmParms` (-67770).
public var errSecInvalidAlgorithmParms: OSStatus { -67770 }
/// Apple: `errSecMissingAlgorithmParms` (-67771).
public var errSecMissingAlgorithmParms: OSStatus { -67771 }
/// Apple: `errSecInvalidAttributeLabel` (-67772).
public var errSecInvalidAttributeLabel: OSStatus { -67772 }
/// Apple: `errSecMissingAttributeLabel` (-67773).
public var errSecMissingAttributeLabel: OSStatus { -67773 }
/// Apple: `errSecInvalidAttributeKeyType` (-67774).
public var errSecInvalidAttributeKeyType: OSStatus { -67774 }
/// Apple: `errSecMissingAttributeKeyType` (-67775).
public var errSecMissingAttributeKeyType: OSStatus { -67775 }
/// Apple: `errSecInvalidAttributeMode` (-67776).
public var errSecInvalidAttributeMode: OSStatus { -67776 }
/// Apple: `errSecMissingAttributeMode` (-67777).
public var errSecMissingAttributeMode: OSStatus { -67777 }
/// Apple: `errSecInvalidAttributeEffectiveBits` (-67778).
public var errSecInvalidAttributeEffectiveBits: OSStatus { -67778 }
/// Apple: `errSecMissingAttributeEffectiveBits` (-67779).
public var errSecMissingAttributeEffectiveBits: OSStatus { -67779 }
/// Apple: `errSecInvalidAttributeStartDate` (-67780).
public var errSecInvalidAttributeStartDate: OSStatus { -67780 }
/// Apple: `errSecMissingAttributeStartDate` (-67781).
public var errSecMissingAttributeStartDate: OSStatus { -67781 }
/// Apple: `errSecInvalidAttributeEndDate` (-67782).
public var errSecInvalidAttributeEndDate: OSStatus { -67782 }
/// Apple: `errSecMissingAttributeEndDate` (-67783).
public var errSecMissingAttributeEndDate: OSStatus { -67783 }
/// Apple: `errSecInvalidAttributeVersion` (-67784).
public var errSecInvalidAttributeVersion: OSStatus { -67784 }
/// Apple: `errSecMissingAttributeVersion` (-67785).
public var errSecMissingAttributeVersion: OSStatus { -67785 }
/// Apple: `errSecInvalidAttributePrime` (-67786).
public var errSecInvalidAttributePrime: OSStatus { -67786 }
/// Apple: `errSecMissingAttributePrime` (-67787).
public var errSecMissingAttributePrime: OSStatus { -67787 }
/// Apple: `errSecInvalidAttributeBase` (-67788).
public var errSecInvalidAttributeBase: OSStatus { -67788 }
/// Apple: `errSecMissingAttributeBase` (-67789).
public var errSecMissingAttributeBase: OSStatus { -67789 }
/// Apple: `errSecInvalidAttributeSubprime` (-67790).
public var errSecInvalidAttributeSubprime: OSStatus { -67790 }
/// Apple: `errSecMissingAttributeSubprime` (-67791).
public var errSecMissingAttributeSubprime: OSStatus { -67791 }
/// Apple: `errSecInvalidAttributeIterationCount` (-67792).
public var errSecInvalidAttributeIterationCount: OSStatus { -67792 }
/// Apple: `errSecMissingAttributeIterationCount` (-67793).
public var errSecMissingAttributeIterationCount: OSStatus { -67793 }
/// Apple: `errSecInvalidAttributeDLDBHandle` (-67794).
public var errSecInvalidAttributeDLDBHandle: OSStatus { -67794 }
/// Apple: `errSecMissingAttributeDLDBHandle` (-67795).
public var errSecMissingAttributeDLDBHandle: OSStatus { -67795 }
/// Apple: `errSecInvalidAttributeAccessCredentials` (-67796).
public var errSecInvalidAttributeAccessCredentials: OSStatus { -67796 }
/// Apple: `errSecMissingAttributeAccessCredentials` (-67797).
public var errSecMissingAttributeAccessCredentials: OSStatus { -67797 }
/// Apple: `errSecInvalidAttributePublicKeyFormat` (-67798).
public var errSecInvalidAttributePublicKeyFormat: OSStatus { -67798 }
/// Apple: `errSecMissingAttributePublicKeyFormat` (-67799).
public var errSecMissingAttributePublicKeyFormat: OSStatus { -67799 }
/// Apple: `errSecInvalidAttributePrivateKeyFormat` (-67800).
public var errSecInvalidAttributePrivateKeyFormat: OSStatus { -67800 }
/// Apple: `errSecMissingAttributePrivateKeyFormat` (-67801).
public var errSecMissingAttributePrivateKeyFormat: OSStatus { -67801 }
/// Apple: `errSecInvalidAttributeSymmetricKeyFormat` (-67802).
public var errSecInvalidAttributeSymmetricKeyFormat: OSStatus { -67802 }
/// Apple: `errSecMissingAttributeSymmetricKeyFormat` (-67803).
public var errSecMissingAttributeSymmetricKeyFormat: OSStatus { -67803 }
/// Apple: `errSecInvalidAttributeWrappedKeyFormat` (-67804).
public var errSecInvalidAttributeWrappedKeyFormat: OSStatus { -67804 }
/// Apple: `errSecMissingAttributeWrappedKeyFormat` (-67805).
public var errSecMissingAttributeWrappedKeyFormat: OSStatus { -67805 }
/// Apple: `errSecStagedOperationInProgress` (-67806).
public var errSecStagedOperationInProgress: OSStatus { -67806 }
/// Apple: `errSecStagedOperationNotStarted` (-67807).
public var errSecStagedOperationNotStarted: OSStatus { -67807 }
/// Apple: `errSecVerifyFailed` (-67808).
public var errSecVerifyFailed: OSStatus { -67808 }
/// Apple: `errSecQuerySizeUnknown` (-67809).
public var errSecQuerySizeUnknown: OSStatus { -67809 }
/// Apple: `errSecBlockSizeMismatch` (-67810).
public var errSecBlockSizeMismatch: OSStatus { -67810 }
/// Apple: `errSecPublicKeyInconsistent` (-67811).
public var errSecPublicKeyInconsistent: OSStatus { -67811 }
/// Apple: `errSecDeviceVerifyFailed` (-67812).
public var errSecDeviceVerifyFailed: OSStatus { -67812 }
/// Apple: `errSecInvalidLoginName` (-67813).
public var errSecInvalidLoginName: OSStatus { -67813 }
/// Apple: `errSecAlreadyLoggedIn` (-67814).
public var errSecAlreadyLoggedIn: OSStatus { -67814 }
/// Apple: `errSecInvalidDigestAlgorithm` (-67815).
public var errSecInvalidDigestAlgorithm: OSStatus { -67815 }
/// Apple: `errSecInvalidCRLGroup` (-67816).
public var errSecInvalidCRLGroup: OSStatus { -67816 }
/// Apple: `errSecCertificateCannotOperate` (-67817).
public var errSecCertificateCannotOperate: OSStatus { -67817 }
/// Apple: `errSecCertificateExpired` (-67818).
public var errSecCertificateExpired: OSStatus { -67818 }
/// Apple: `errSecCertificateNotValidYet` (-67819).
public var errSecCertificateNotValidYet: OSStatus { -67819 }
/// Apple: `errSecCertificateRevoked` (-67820).
public var errSecCertificateRevoked: OSStatus { -67820 }
/// Apple: `errSecCertificateSuspended` (-67821).
public var errSecCertificateSuspended: OSStatus { -67821 }
/// Apple: `errSecInsufficientCredentials` (-67822).
public var errSecInsufficientCredentials: OSStatus { -67822 }
/// Apple: `errSecInvalidAction` (-67823).
public var errSecInvalidAction: OSStatus { -67823 }
/// Apple: `errSecInvalidAuthority` (-67824).
public var errSecInvalidAuthority: OSStatus { -67824 }
/// Apple: `errSecVerifyActionFailed` (-67825).
public var errSecVerifyActionFailed: OSStatus { -67825 }
/// Apple: `errSecInvalidCertAuthority` (-67826).
public var errSecInvalidCertAuthority: OSStatus { -67826 }
/// Apple: `errSecInvalidCRLAuthority` (-67827).
public var errSecInvalidCRLAuthority: OSStatus { -67827 }
/// Apple: `errSecInvalidCRLEncoding` (-67828).
public var errSecInvalidCRLEncoding: OSStatus { -67828 }
/// Apple: `errSecInvalidCRLType` (-67829).
public var errSecInvalidCRLType: OSStatus { -67829 }
/// Apple: `errSecInvalidCRL` (-67830).
public var errSecInvalidCRL: OSStatus { -67830 }
/// Apple: `errSecInvalidFormType` (-67831).
public var errSecInvalidFormType: OSStatus { -67831 }
/// Apple: `errSecInvalidID` (-67832).
public var errSecInvalidID: OSStatus { -67832 }
/// Apple: `errSecInvalidIdentifier` (-67833).
public var errSecInvalidIdentifier: OSStatus { -67833 }
/// Apple: `errSecInvalidIndex` (-67834).
public var errSecInvalidIndex: OSStatus { -67834 }
/// Apple: `errSecInvalidPolicyIdentifiers` (-67835).
public var errSecInvalidPolicyIdentifiers: OSStatus { -67835 }
/// Apple: `errSecInvalidTimeString` (-67836).
public var errSecInvalidTimeString: OSStatus { -67836 }
/// Apple: `errSecInvalidReason` (-67837).
public var errSecInvalidReason: OSStatus { -67837 }
/// Apple: `errSecInvalidRequestInputs` (-67838).
public var errSecInvalidRequestInputs: OSStatus { -67838 }
/// Apple: `errSecInvalidResponseVector` (-67839).
public var errSecInvalidResponseVector: OSStatus { -67839 }
/// Apple: `errSecInvalidStopOnPolicy` (-67840).
public var errSecInvalidStopOnPolicy: OSStatus { -67840 }
/// Apple: `errSecInvalidTuple` (-67841).
public var errSecInvalidTuple: OSStatus { -67841 }
/// Apple: `errSecMultipleValuesUnsupported` (-67842).
public var errSecMultipleValuesUnsupported: OSStatus { -67842 }
/// Apple: `errSecNotTrusted` (-67843).
public var errSecNotTrusted: OSStatus { -67843 }
/// Apple: `errSecNoDefaultAuthority` (-67844).
public var errSecNoDefaultAuthority: OSStatus { -67844 }
/// Apple: `errSecRejectedForm` (-67845).
public var errSecRejectedForm: OSStatus { -67845 }
/// Apple: `errSecRequestLost` (-67846).
public var errSecRequestLost: OSStatus { -67846 }
/// Apple: `errSecRequestRejected` (-67847).
public var errSecRequestRejected: OSStatus { -67847 }
/// Apple: `errSecUnsupportedAddressType` (-67848).
public var errSecUnsupportedAddressType: OSStatus { -67848 }
/// Apple: `errSecUnsupportedService` (-67849).
public var errSecUnsupportedService: OSStatus { -67849 }
/// Apple: `errSecInvalidTupleGroup` (-67850).
public var errSecInvalidTupleGroup: OSStatus { -67850 }
/// Apple: `errSecInvalidBaseACLs` (-67851).
public var errSecInvalidBaseACLs: OSStatus { -67851 }
/// Apple: `errSecInvalidTupleCredentials` (-67852).
public var errSecInvalidTupleCredentials: OSStatus { -67852 }
/// Apple: `errSecInvalidEncoding` (-67853).
public var errSecInvalidEncoding: OSStatus { -67853 }
/// Apple: `errSecInvalidValidityPeriod` (-67854).
public var errSecInvalidValidityPeriod: OSStatus { -67854 }
/// Apple: `errSecInvalidRequestor` (-67855).
public var errSecInvalidRequestor: OSStatus { -67855 }
/// Apple: `errSecRequestDescriptor` (-67856).
public var errSecRequestDescriptor: OSStatus { -67856 }
/// Apple: `errSecInvalidBundleInfo` (-67857).
public var errSecInvalidBundleInfo: OSStatus { -67857 }
/// Apple: `errSecInvalidCRLIndex` (-67858).
public var errSecInvalidCRLIndex: OSStatus { -67858 }
/// Apple: `errSecNoFieldValues` (-67859).
public var errSecNoFieldValues: OSStatus { -67859 }
/// Apple: `errSecUnsupportedFieldFormat` (-67860).
public var errSecUnsupportedFieldFormat: OSStatus { -67860 }
/// Apple: `errSecUnsupportedIndexInfo` (-67861).
public var errSecUnsupportedIndexInfo: OSStatus { -67861 }
/// Apple: `errSecUnsupportedLocality` (-67862).
public var errSecUnsupportedLocality: OSStatus { -67862 }
/// Apple: `errSecUnsupportedNumAttributes` (-67863).
public var errSecUnsupportedNumAttributes: OSStatus { -67863 }
/// Apple: `errSecUnsupportedNumIndexes` (-67864).
public var errSecUnsupportedNumIndexes: OSStatus { -67864 }
/// Apple: `errSecUnsupportedNumRecordTypes` (-67865).
public var errSecUnsupportedNumRecordTypes: OSStatus { -67865 }
/// Apple: `errSecFieldSpecifiedMultiple` (-67866).
public var errSecFieldSpecifiedMultiple: OSStatus { -67866 }
/// Apple: `errSecIncompatibleFieldFormat` (-67867).
public var errSecIncompatibleFieldFormat: OSStatus { -67867 }
/// Apple: `errSecInvalidParsingModule` (-67868).
public var errSecInvalidParsingModule: OSStatus { -67868 }
/// Apple: `errSecDatabaseLocked` (-67869).
public var errSecDatabaseLocked: OSStatus { -67869 }
/// Apple: `errSecDatastoreIsOpen` (-67870).
public var errSecDatastoreIsOpen: OSStatus { -67870 }
/// Apple: `errSecMissingValue` (-67871).
public var errSecMissingValue: OSStatus { -67871 }
/// Apple: `errSecUnsupportedQueryLimits` (-67872).
public var errSecUnsupportedQueryLimits: OSStatus { -67872 }
/// Apple: `errSecUnsupportedNumSelectionPreds` (-67873).
public var errSecUnsupportedNumSelectionPreds: OSStatus { -67873 }
/// Apple: `errSecUnsupportedOperator` (-67874).
public var errSecUnsupportedOperator: OSStatus { -67874 }
/// Apple: `errSecInvalidDBLocation` (-67875).
public var errSecInvalidDBLocation: OSStatus { -67875 }
/// Apple: `errSecInvalidAccessRequest` (-67876).
public var errSecInvalidAccessRequest: OSStatus { -67876 }
/// Apple: `errSecInvalidIndexInfo` (-67877).
public var errSecInvalidIndexInfo: OSStatus { -67877 }
/// Apple: `errSecInvalidNewOwner` (-67878).
public var errSecInvalidNewOwner: OSStatus { -67878 }
/// Apple: `errSecInvalidModifyMode` (-67879).
public var errSecInvalidModifyMode: OSStatus { -67879 }
/// Apple: `errSecMissingRequiredExtension` (-67880).
public var errSecMissingRequiredExtension: OSStatus { -67880 }
/// Apple: `errSecExtendedKeyUsageNotCritical` (-67881).
public var errSecExtendedKeyUsageNotCritical: OSStatus { -67881 }
/// Apple: `errSecTimestampMissing` (-67882).
public var errSecTimestampMissing: OSStatus { -67882 }
/// Apple: `errSecTimestampInvalid` (-67883).
public var errSecTimestampInvalid: OSStatus { -67883 }
/// Apple: `errSecTimestampNotTrusted` (-67884).
public var errSecTimestampNotTrusted: OSStatus { -67884 }
/// Apple: `errSecTimestampServiceNotAvailable` (-67885).
public var errSecTimestampServiceNotAvailable: OSStatus { -67885 }
/// Apple: `errSecTimestampBadAlg` (-67886).
public var errSecTimestampBadAlg: OSStatus { -67886 }
/// Apple: `errSecTimestampBadRequest` (-67887).
public var errSecTimestampBadRequest: OSStatus { -67887 }
/// Apple: `errSecTimestampBadDataFormat` (-67888).
public var errSecTimestampBadDataFormat: OSStatus { -67888 }
/// Apple: `errSecTimestampTimeNotAvailable` (-67889).
public var errSecTimestampTimeNotAvailable: OSStatus { -67889 }
/// Apple: `errSecTimestampUnacceptedPolicy` (-67890).
public var errSecTimestampUnacceptedPolicy: OSStatus { -67890 }
/// Apple: `errSecTimestampUnacceptedExtension` (-67891).
public var errSecTimestampUnacceptedExtension: OSStatus { -67891 }
/// Apple: `errSecTimestampAddInfoNotAvailable` (-67892).
public var errSecTimestampAddInfoNotAvailable: OSStatus { -67892 }
/// Apple: `errSecTimestampSystemFailure` (-67893).
public var errSecTimestampSystemFailure: OSStatus { -67893 }
/// Apple: `errSecSigningTimeMissing` (-67894).
public var errSecSigningTimeMissing: OSStatus { -67894 }
/// Apple: `errSecTimestampRejection` (-67895).
public var errSecTimestampRejection: OSStatus { -67895 }
/// Apple: `errSecTimestampWaiting` (-67896).
public var errSecTimestampWaiting: OSStatus { -67896 }
/// Apple: `errSecTimestampRevocationWarning` (-67897).
public var errSecTimestampRevocationWarning: OSStatus { -67897 }
/// Apple: `errSecTimestampRevocationNotification` (-67898).
public var errSecTimestampRevocationNotification: OSStatus { -67898 }
/// Apple: `errSecCertificatePolicyNotAllowed` (-67899).
public var errSecCertificatePolicyNotAllowed: OSStatus { -67899 }
/// Apple: `errSecCertificateNameNotAllowed` (-67900).
public var errSecCertificateNameNotAllowed: OSStatus { -67900 }
/// Apple: `errSecCertificateValidityPeriodTooLong` (-67901).
public var errSecCertificateValidityPeriodTooLong: OSStatus { -67901 }
/// Apple: `errSecCertificateIsCA` (-67902).
public var errSecCertificateIsCA: OSStatus { -67902 }
/// Apple: `errSecCertificateDuplicateExtension` (-67903).
public var errSecCertificateDuplicateExtension: OSStatus { -67903 }
/// Apple: `errSecMissingQualifiedCertStatement` (-67904).
public var errSecMissingQualifiedCertStatement: OSStatus { -67904 }

// Misspelled or superseded names Apple keeps for old code.

/// Apple: `errSecDskFull` (-34).
@available(*, deprecated, renamed: "errSecDiskFull")
public var errSecDskFull: OSStatus { errSecDiskFull }
/// Apple: `errSecInvaldCRLAuthority` (-67827).
@available(*, deprecated, renamed: "errSecInvalidCRLAuthority")
public var errSecInvaldCRLAuthority: OSStatus { errSecInvalidCRLAuthority }
/// Apple: `errSecInvalidTupleCredendtials` (-67852).
@available(*, deprecated, renamed: "errSecInvalidTupleCredentials")
public var errSecInvalidTupleCredendtials: OSStatus { errSecInvalidTupleCredentials }
