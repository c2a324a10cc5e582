// The SecureTransport / TLS result codes that Apple's SecBase.h also declares (its second
// enumeration). KeychainKit has no TLS stack; the names exist so that code mentioning them
// compiles, and SecCopyErrorMessageString knows their texts as Apple's does.

/// Apple: `errSSLProtocol` (-9800).
public var errSSLProtocol: OSStatus { -9800 }
/// Apple: `errSSLNegotiation` (-9801).
public var errSSLNegotiation: OSStatus { -9801 }
/// Apple: `errSSLFatalAlert` (-9802).
public var errSSLFatalAlert: OSStatus { -9802 }
/// Apple: `errSSLWouldBlock` (-9803).
public var errSSLWouldBlock: OSStatus { -9803 }
/// Apple: `errSSLSessionNotFound` (-9804).
public var errSSLSessionNotFound: OSStatus { -9804 }
/// Apple: `errSSLClosedGraceful` (-9805).
public var errSSLClosedGraceful: OSStatus { -9805 }
/// Apple: `errSSLClosedAbort` (-9806).
public var errSSLClosedAbort: OSStatus { -9806 }
/// Apple: `errSSLXCertChainInvalid` (-9807).
public var errSSLXCertChainInvalid: OSStatus { -9807 }
/// Apple: `errSSLBadCert` (-9808).
public var errSSLBadCert: OSStatus { -9808 }
/// Apple: `errSSLCrypto` (-9809).
public var errSSLCrypto: OSStatus { -9809 }
/// Apple: `errSSLInternal` (-9810).
public var errSSLInternal: OSStatus { -9810 }
/// Apple: `errSSLModuleAttach` (-9811).
public var errSSLModuleAttach: OSStatus { -9811 }
/// Apple: `errSSLUnknownRootCert` (-9812).
public var errSSLUnknownRootCert: OSStatus { -9812 }
/// Apple: `errSSLNoRootCert` (-9813).
public var errSSLNoRootCert: OSStatus { -9813 }
/// Apple: `errSSLCertExpired` (-9814).
public var errSSLCertExpired: OSStatus { -9814 }
/// Apple: `errSSLCertNotYetValid` (-9815).
public var errSSLCertNotYetValid: OSStatus { -9815 }
/// Apple: `errSSLClosedNoNotify` (-9816).
public var errSSLClosedNoNotify: OSStatus { -9816 }
/// Apple: `errSSLBufferOverflow` (-9817).
public var errSSLBufferOverflow: OSStatus { -9817 }
/// Apple: `errSSLBadCipherSuite` (-9818).
public var errSSLBadCipherSuite: OSStatus { -9818 }
/// Apple: `errSSLPeerUnexpectedMsg` (-9819).
public var errSSLPeerUnexpectedMsg: OSStatus { -9819 }
/// Apple: `errSSLPeerBadRecordMac` (-9820).
public var errSSLPeerBadRecordMac: OSStatus { -9820 }
/// Apple: `errSSLPeerDecryptionFail` (-9821).
public var errSSLPeerDecryptionFail: OSStatus { -9821 }
/// Apple: `errSSLPeerRecordOverflow` (-9822).
public var errSSLPeerRecordOverflow: OSStatus { -9822 }
/// Apple: `errSSLPeerDecompressFail` (-9823).
public var errSSLPeerDecompressFail: OSStatus { -9823 }
/// Apple: `errSSLPeerHandshakeFail` (-9824).
public var errSSLPeerHandshakeFail: OSStatus { -9824 }
/// Apple: `errSSLPeerBadCert` (-9825).
public var errSSLPeerBadCert: OSStatus { -9825 }
/// Apple: `errSSLPeerUnsupportedCert` (-9826).
public var errSSLPeerUnsupportedCert: OSStatus { -9826 }
/// Apple: `errSSLPeerCertRevoked` (-9827).
public var errSSLPeerCertRevoked: OSStatus { -9827 }
/// Apple: `errSSLPeerCertExpired` (-9828).
public var errSSLPeerCertExpired: OSStatus { -9828 }
/// Apple: `errSSLPeerCertUnknown` (-9829).
public var errSSLPeerCertUnknown: OSStatus { -9829 }
/// Apple: `errSSLIllegalParam` (-9830).
public var errSSLIllegalParam: OSStatus { -9830 }
/// Apple: `errSSLPeerUnknownCA` (-9831).
public var errSSLPeerUnknownCA: OSStatus { -9831 }
/// Apple: `errSSLPeerAccessDenied` (-9832).
public var errSSLPeerAccessDenied: OSStatus { -9832 }
/// Apple: `errSSLPeerDecodeError` (-9833).
public var errSSLPeerDecodeError: OSStatus { -9833 }
/// Apple: `errSSLPeerDecryptError` (-9834).
public var errSSLPeerDecryptError: OSStatus { -9834 }
/// Apple: `errSSLPeerExportRestriction` (-9835).
public var errSSLPeerExportRestriction: OSStatus { -9835 }
/// Apple: `errSSLPeerProtocolVersion` (-9836).
public var errSSLPeerProtocolVersion: OSStatus { -9836 }
/// Apple: `errSSLPeerInsufficientSecurity` (-9837).
public var errSSLPeerInsufficientSecurity: OSStatus { -9837 }
/// Apple: `errSSLPeerInternalError` (-9838).
public var errSSLPeerInternalError: OSStatus { -9838 }
/// Apple: `errSSLPeerUserCancelled` (-9839).
public var errSSLPeerUserCancelled: OSStatus { -9839 }
/// Apple: `errSSLPeerNoRenegotiation` (-9840).
public var errSSLPeerNoRenegotiation: OSStatus { -9840 }
/// Apple: `errSSLPeerAuthCompleted` (-9841).
public var errSSLPeerAuthCompleted: OSStatus { -9841 }
/// Apple: `errSSLClientCertRequested` (-9842).
public var errSSLClientCertRequested: OSStatus { -9842 }
/// Apple: `errSSLHostNameMismatch` (-9843).
public var errSSLHostNameMismatch: OSStatus { -9843 }
/// Apple: `errSSLConnectionRefused` (-9844).
public var errSSLConnectionRefused: OSStatus { -9844 }
/// Apple: `errSSLDecryptionFail` (-9845).
public var errSSLDecryptionFail: OSStatus { -9845 }
/// Apple: `errSSLBadRecordMac` (-9846).
public var errSSLBadRecordMac: OSStatus { -9846 }
/// Apple: `errSSLRecordOverflow` (-9847).
public var errSSLRecordOverflow: OSStatus { -9847 }
/// Apple: `errSSLBadConfiguration` (-9848).
public var errSSLBadConfiguration: OSStatus { -9848 }
/// Apple: `errSSLUnexpectedRecord` (-9849).
public var errSSLUnexpectedRecord: OSStatus { -9849 }
/// Apple: `errSSLWeakPeerEphemeralDHKey` (-9850).
public var errSSLWeakPeerEphemeralDHKey: OSStatus { -9850 }
/// Apple: `errSSLClientHelloReceived` (-9851).
public var errSSLClientHelloReceived: OSStatus { -9851 }
/// Apple: `errSSLTransportReset` (-9852).
public var errSSLTransportReset: OSStatus { -9852 }
/// Apple: `errSSLNetworkTimeout` (-9853).
public var errSSLNetworkTimeout: OSStatus { -9853 }
/// Apple: `errSSLConfigurationFailed` (-9854).
public var errSSLConfigurationFailed: OSStatus { -9854 }
/// Apple: `errSSLUnsupportedExtension` (-9855).
public var errSSLUnsupportedExtension: OSStatus { -9855 }
/// Apple: `errSSLUnexpectedMessage` (-9856).
public var errSSLUnexpectedMessage: OSStatus { -9856 }
/// Apple: `errSSLDecompressFail` (-9857).
public var errSSLDecompressFail: OSStatus { -9857 }
/// Apple: `errSSLHandshakeFail` (-9858).
public var errSSLHandshakeFail: OSStatus { -9858 }
/// Apple: `errSSLDecodeError` (-9859).
public var errSSLDecodeError: OSStatus { -9859 }
/// Apple: `errSSLInappropriateFallback` (-9860).
public var errSSLInappropriateFallback: OSStatus { -9860 }
/// Apple: `errSSLMissingExtension` (-9861).
public var errSSLMissingExtension: OSStatus { -9861 }
/// Apple: `errSSLBadCertificateStatusResponse` (-9862).
public var errSSLBadCertificateStatusResponse: OSStatus { -9862 }
/// Apple: `errSSLCertificateRequired` (-9863).
public var errSSLCertificateRequired: OSStatus { -9863 }
/// Apple: `errSSLUnknownPSKIdentity` (-9864).
public var errSSLUnknownPSKIdentity: OSStatus { -9864 }
/// Apple: `errSSLUnrecognizedName` (-9865).
public var errSSLUnrecognizedName: OSStatus { -9865 }
/// Apple: `errSSLATSViolation` (-9880).
public var errSSLATSViolation: OSStatus { -9880 }
/// Apple: `errSSLATSMinimumVersionViolation` (-9881).
public var errSSLATSMinimumVersionViolation: OSStatus { -9881 }
/// Apple: `errSSLATSCiphersuiteViolation` (-9882).
public var errSSLATSCiphersuiteViolation: OSStatus { -9882 }
/// Apple: `errSSLATSMinimumKeySizeViolation` (-9883).
public var errSSLATSMinimumKeySizeViolation: OSStatus { -9883 }
/// Apple: `errSSLATSLeafCertificateHashAlgorithmViolation` (-9884).
public var errSSLATSLeafCertificateHashAlgorithmViolation: OSStatus { -9884 }
/// Apple: `errSSLATSCertificateHashAlgorithmViolation` (-9885).
public var errSSLATSCertificateHashAlgorithmViolation: OSStatus { -9885 }
/// Apple: `errSSLATSCertificateTrustViolation` (-9886).
public var errSSLATSCertificateTrustViolation: OSStatus { -9886 }
/// Apple: `errSSLEarlyDataRejected` (-9890).
public var errSSLEarlyDataRejected: OSStatus { -9890 }
